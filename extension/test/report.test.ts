import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TapeRecord } from '../src/protocol';
import { groupWouldDeny, isWouldDeny, renderReport, suggest } from '../src/report';

const rec = (over: Partial<TapeRecord>): TapeRecord => ({ mode: 'warn', verdict: 'deny', allowed: true, rule: 'not-in-allow-list', tool: 'bash', ...over });

test('only warn-mode would-deny records count', () => {
  assert.equal(isWouldDeny(rec({})), true);
  assert.equal(isWouldDeny(rec({ allowed: false, mode: 'enforce' })), false);
  assert.equal(isWouldDeny(rec({ verdict: 'allow' })), false);
  assert.equal(isWouldDeny(rec({ mode: 'off' })), false);
});

test('groups by rule and tool, largest first, with examples and programs', () => {
  const groups = groupWouldDeny([
    rec({ tool: 'deploy', time: '2025-01-02T00:00:00Z' }),
    rec({ tool: 'deploy', time: '2025-01-01T00:00:00Z' }),
    rec({ tool: 'bash', rule: 'unsupported-program', command: 'terraform apply -auto-approve', time: '2025-01-03T00:00:00Z' }),
    rec({ tool: 'bash', rule: 'unsupported-program', args: { command: '/usr/bin/kubectl get pods' } }),
    rec({ tool: 'bash', rule: 'unsupported-program', command: 'terraform plan' }),
    rec({ tool: 'write_file', rule: 'read-only-effects', args: { path: 'src/a.ts' } }),
    rec({ tool: 'edit_file', rule: 'unobserved-target', args: { path: 'b.ts' } }),
    rec({ tool: 'deploy', mode: 'enforce', allowed: false }), // a real refusal: not in the report
    rec({ tool: 'ok', verdict: 'allow' }),
  ]);
  assert.deepEqual(groups.map((g) => [g.rule, g.tool, g.count]), [
    ['unsupported-program', 'bash', 3],
    ['not-in-allow-list', 'deploy', 2],
    ['read-only-effects', 'write_file', 1],
    ['unobserved-target', 'edit_file', 1],
  ]);
  const prog = groups[0];
  assert.deepEqual(prog.programs, ['kubectl', 'terraform']);
  assert.deepEqual(prog.examples, ['terraform apply -auto-approve', '/usr/bin/kubectl get pods', 'terraform plan']);
  assert.match(prog.suggestion, /programs/);
  assert.match(prog.suggestion, /"terraform"/);
  const allow = groups[1];
  assert.equal(allow.first, '2025-01-01T00:00:00Z');
  assert.equal(allow.last, '2025-01-02T00:00:00Z');
  assert.equal(allow.suggestion, 'add the tool to the allow list: `"allow": ["deploy"]`');
  assert.match(groups[2].suggestion, /"effects": "workspace-write"/);
  assert.match(groups[3].suggestion, /read .* before changing it/);
});

test('examples are capped at five distinct', () => {
  const rs = Array.from({ length: 9 }, (_, i) => rec({ command: `cmd${i % 7}` }));
  const [g] = groupWouldDeny(rs);
  assert.equal(g.count, 9);
  assert.equal(g.examples.length, 5);
});

test('every known rule has a suggestion; unknown rules say so', () => {
  for (const r of ['no-write-root', 'outside-write-root', 'protected-path', 'budget-exhausted', 'request-too-large', 'dynamic-word', 'shell-syntax', 'forbidden-flag', 'git-subcommand']) {
    assert.doesNotMatch(suggest(r, 't', []), /no automatic suggestion/, r);
  }
  assert.match(suggest('brand-new-rule', 't', []), /no automatic suggestion/);
});

test('the Markdown report has a table and a section per group', () => {
  const md = renderReport(groupWouldDeny([rec({ tool: 'deploy' }), rec({ tool: 'deploy' }), rec({ tool: 'x|y' })]), 10, '/t.jsonl');
  assert.match(md, /^# admit campaign report/);
  assert.match(md, /3 calls would have been refused in enforce mode, in 2 groups \(10 tape records read from `\/t.jsonl`\)/);
  assert.match(md, /\| 2 \| `not-in-allow-list` \| `deploy` \|/);
  assert.match(md, /## `not-in-allow-list` · `deploy` \(2\)/);
  assert.match(renderReport([], 0), /Nothing to change/);
});
