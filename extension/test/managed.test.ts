import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pinnedRefusal } from '../src/commands';
import { exportTooltip, managedNotices, managedStatus, managedTooltip, pinOf } from '../src/managed';
import type { AdmitState } from '../src/protocol';
import { statusText, statusTooltip } from '../src/status';
import { assertInert, assertPlain, hostile } from './hostile';

const state = (over: Partial<AdmitState> = {}): AdmitState => ({
  mode: 'enforce', effects: 'read-only', shell: 'analyze', roots: ['/w'],
  counts: { allowed: 0, denied: 0, wouldDeny: 0, pending: 0 }, tape: '/s/tape.jsonl', ...over,
});

const managed = {
  paths: ['/etc/admit/managed.json'], mode: 'enforce', effects: 'read-only', shell: 'refuse', confinedRuns: 'ask',
  secretPatterns: ['*.corp-key'], rules: ['deny npm publish *'], hooks: ['claude-code'], export: 'https://otel.example:4318',
};

test('the status item says the gate is managed by the organisation, and what the export could not send', () => {
  assert.equal(statusText({ kind: 'running', state: state() }), '$(shield) admit: enforce · read-only');
  assert.equal(statusText({ kind: 'running', state: state({ managed }) }), '$(shield) admit: enforce · read-only · $(organization) managed');
  assert.equal(statusText({ kind: 'running', state: state({ managed: { paths: [], error: 'owned by uid 1000' } }) }), '$(shield) admit: enforce · read-only · $(error) managed policy invalid');
  const exp = { endpoint: 'http://127.0.0.1:4318', queued: 2, sent: 10, failed: 3, dropped: 1, retries: 4, lastError: 'connection refused' };
  assert.equal(statusText({ kind: 'running', state: state({ export: exp }) }), '$(shield) admit: enforce · read-only · $(warning) 4 not exported');
  assert.deepEqual(managedStatus(state({ export: { ...exp, failed: 0, dropped: 0 } })), []);
});

test('the tooltip marks each pin as the organisation\'s and shows the export\'s counts', () => {
  const t = statusTooltip({ kind: 'running', state: state({ managed, export: { endpoint: 'http://c:4318', queued: 2, sent: 10, failed: 3, dropped: 1, retries: 4, lastError: 'refused' } }) });
  assert.match(t.markdown, /\*\*Managed by your organisation\*\* \(`\/etc\/admit\/managed\.json`\)/);
  for (const want of [/- mode: `enforce`/, /- effects at most: `read-only`/, /- shell: `refuse`/, /- confined runs: `ask`/, /secret files: `\*\.corp-key`/, /rules: `deny npm publish \*`/, /managed places: `claude-code`/]) {
    assert.match(t.markdown, want);
  }
  assert.match(t.markdown, /Decisions exported to `http:\/\/c:4318`: sent 10 · waiting 2 · \*\*could not be sent 3 · dropped 1\*\* · retries 4/);
  assert.match(t.markdown, /Last export error: refused/);
  assert.equal(managedTooltip(state()), undefined);
  assert.equal(exportTooltip(state()), undefined);
  assert.match(managedTooltip(state({ managed: { paths: [], error: 'not root\'s' } }))!, /cannot be used.*managed-invalid/);
});

test('an organisation\'s texts are drawn inert in the tooltip', () => {
  for (const h of hostile) {
    const bad = { ...managed, paths: [h], rules: [h], lastError: h };
    const md = managedTooltip(state({ managed: bad }))! + '\n\n' + exportTooltip(state({ export: { endpoint: h, lastError: h, sent: 1 } }))!;
    const ok = managedTooltip(state({ managed: { ...managed, paths: ['p'], rules: ['r'] } }))! + '\n\n' + exportTooltip(state({ export: { endpoint: 'e', lastError: 'x', sent: 1 } }))!;
    assertInert(md, ok, [h], 'managed tooltip');
  }
});

test('what the managed layer pins, and the person\'s settings it overrides', () => {
  const st = state({ managed });
  assert.equal(pinOf(st, 'mode'), 'enforce');
  assert.equal(pinOf(st, 'effects'), 'read-only');
  assert.equal(pinOf(state({ managed: { ...managed, effects: 'workspace-write' } }), 'effects'), undefined, 'a ceiling of workspace-write pins nothing');
  assert.equal(pinOf(state(), 'mode'), undefined);
  assert.equal(pinOf(state({ managed: { paths: [], error: 'x', mode: 'enforce' } }), 'mode'), undefined);
  assert.equal(pinnedRefusal('mode', 'enforce', 'enforce'), undefined);
  assert.match(pinnedRefusal('mode', 'enforce', 'warn')!, /the mode is managed by your organisation \(enforce\)/);
  assert.equal(pinnedRefusal('effects', undefined, 'workspace-write'), undefined);
  const notes = managedNotices(st, { mode: 'warn', effects: 'workspace-write', shell: 'refuse', confinedRuns: undefined });
  assert.deepEqual(notes, [
    'admit: admit.mode is managed by your organisation (enforce, /etc/admit/managed.json): your setting warn is not used.',
    'admit: admit.effects is managed by your organisation (read-only, /etc/admit/managed.json): your setting workspace-write is not used.',
  ]);
  for (const h of hostile) {
    for (const n of managedNotices(state({ managed: { ...managed, paths: [h] } }), { mode: 'off' })) assertPlain(n, [h], 'managed notice');
  }
});
