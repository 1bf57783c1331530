import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TapeRecord } from '../src/protocol';
import { fallbackRemedy, groupWouldDeny, isWouldDeny, renderReport, type Suggestions } from '../src/report';
import { proseText } from '../src/text';
import { assertInertHtml, hostile, links, pageText, tags } from './hostile';

const nonce = 'AAAAAAAAAAAAAAAAAAAAAAAA';
const rec = (over: Partial<TapeRecord>): TapeRecord => ({ mode: 'warn', verdict: 'deny', allowed: true, rule: 'not-in-allow-list', tool: 'bash', ...over });
const none: Suggestions = { kind: 'ok', list: [] };
const page = (records: TapeRecord[], s: Suggestions = none, tape?: string) => renderReport(groupWouldDeny(records), records.length, tape, s, 3, nonce);

test('only warn-mode would-deny records count', () => {
  assert.equal(isWouldDeny(rec({})), true);
  assert.equal(isWouldDeny(rec({ allowed: false, mode: 'enforce' })), false);
  assert.equal(isWouldDeny(rec({ verdict: 'allow' })), false);
  assert.equal(isWouldDeny(rec({ mode: 'off' })), false);
});

test('old tapes (no remedy): groups by rule and tool, largest first, with examples, programs and the fallback', () => {
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
  assert.equal(prog.fromServer, false);
  const text = (g: (typeof groups)[number]) => g.remedies.map(proseText).join(' / ');
  assert.match(text(prog), /programs/);
  assert.match(text(prog), /"terraform"/);
  const allow = groups[1];
  assert.equal(allow.first, '2025-01-01T00:00:00Z');
  assert.equal(allow.last, '2025-01-02T00:00:00Z');
  assert.equal(text(allow), 'add the tool to the allow list: `"allow": ["deploy"]`');
  assert.match(text(groups[2]), /"effects": "workspace-write"/);
  assert.match(text(groups[3]), /read .* before changing it/);
});

test('the remedy comes from the server\'s field, not from a table of rule names', () => {
  const records = [
    rec({ rule: 'not-in-allow-list', tool: 'deploy', remedy: 'ask the person to grant `deploy`' }),
    rec({ rule: 'not-in-allow-list', tool: 'deploy', remedy: 'ask the person to grant `deploy`' }),
    rec({ rule: 'brand-new-rule', tool: 'x', remedy: 'do the new thing' }),
    rec({ rule: 'brand-new-rule', tool: 'x' }), // an old record beside new ones: the server's remedy stands
  ];
  const groups = groupWouldDeny(records);
  assert.deepEqual(groups.map((g) => [g.rule, g.fromServer, g.remedies.map(proseText)]), [
    ['brand-new-rule', true, ['do the new thing']],
    ['not-in-allow-list', true, ['ask the person to grant `deploy`']],
  ]);
  const html = page(records);
  assert.match(html, /Remedy: ask the person to grant <code>deploy<\/code>/);
  assert.doesNotMatch(html, /allow list/, 'the fallback is not used when the server sent a remedy');
});

test('examples are capped at five distinct', () => {
  const rs = Array.from({ length: 9 }, (_, i) => rec({ command: `cmd${i % 7}` }));
  const [g] = groupWouldDeny(rs);
  assert.equal(g.count, 9);
  assert.equal(g.examples.length, 5);
});

test('the fallback covers the rules old tapes hold; unknown rules say so', () => {
  for (const r of ['no-write-root', 'outside-write-root', 'protected-path', 'budget-exhausted', 'request-too-large', 'dynamic-word', 'shell-syntax', 'forbidden-flag', 'git-subcommand', 'approval-cancelled', 'no-approver']) {
    assert.doesNotMatch(proseText(fallbackRemedy(r, 't', [])), /no remedy/, r);
  }
  assert.match(proseText(fallbackRemedy('brand-new-rule', 't', [])), /no remedy on this old tape record/);
});

test('the report page: a table and a section per group, then the proposed rules, each with its own add link', () => {
  const s: Suggestions = { kind: 'ok', list: [{ match: 'npm test *', decision: 'allow', count: 12, examples: ['npm test', 'npm test -- -u'] }, { match: 'make *', decision: 'ask', count: 3, examples: ['make all'] }], added: new Set([1]) };
  const html = page([rec({ tool: 'deploy' }), rec({ tool: 'deploy' }), rec({ tool: 'x|y' })], s, '/t.jsonl');
  const text = pageText(html);
  assert.match(text, /admit campaign report/);
  assert.match(text, /3 calls would have been refused in enforce mode, in 2 groups \(3 tape records read from \/t.jsonl\)/);
  assert.match(html, /<tr><td class="n">2<\/td><td><code>not-in-allow-list<\/code><\/td><td><code>deploy<\/code><\/td>/);
  assert.match(text, /Proposed rules/);
  assert.match(text, /npm test \*allow12npm testnpm test -- -uAdd this rule…/);
  assert.deepEqual(links(html).map((l) => decodeURIComponent(l)), ['command:admit.addSuggestedRule?[3,0]'], 'one link: the rule not yet added; the added one says so');
  assert.match(text, /make \*ask3make alladded/);
  assert.match(pageText(page([])), /Nothing to change/);
  assert.match(pageText(page([], { kind: 'unavailable', message: 'This admit server does not know admit/suggestRules (method not found)' })), /does not know admit\/suggestRules/);
  assert.match(pageText(page([])), /None: nothing on the tape/);
});

test('the report draws every text from the tape and the server inert: commands, tools, rules, remedies, times, proposals', () => {
  for (const h of hostile) {
    const records = (x: string) => [
      rec({ rule: x, tool: x, command: x, time: x, remedy: 'grant `deploy` in the allow list' }),
      rec({ rule: 'not-in-allow-list', tool: x, args: { path: x } }), // an old record: the fallback quotes the tool
      rec({ rule: 'unsupported-program', tool: 'bash', command: `terraform ${x}` }),
    ];
    const s = (x: string): Suggestions => ({ kind: 'ok', list: [{ match: x, decision: 'allow', count: 2, examples: [x, x] }] });
    const html = (x: string) => page(records(x), s(x), x);
    assertInertHtml(html(h), html('x'), [h], `report with ${JSON.stringify(h)}`);
    assertInertHtml(page([], { kind: 'unavailable', message: h }), page([], { kind: 'unavailable', message: 'x' }), [h], `unavailable with ${JSON.stringify(h)}`);
    // The server's remedy is prose with code spans: whatever it holds, no link and no markup but code.
    const remedy = (x: string) => page([rec({ remedy: x })]);
    assert.deepEqual(links(remedy(h)), [], JSON.stringify(h));
    const noCode = (x: string) => tags(x).filter((t) => !/^<\/?code$/.test(t));
    assert.deepEqual(noCode(remedy(h)), noCode(remedy('x')), JSON.stringify(h));
  }
});
