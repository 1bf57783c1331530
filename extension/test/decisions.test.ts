import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as vscode from 'vscode';
import { classify, DecisionsProvider, DecisionStore, describeFilter } from '../src/decisions';
import type { Decision } from '../src/protocol';
import { decisionDocument } from '../src/commands';
import { mdCode } from '../src/text';
import { assertInert, assertPlain, commandLink, hostile } from './hostile';

const d = (id: string, over: Partial<Decision> = {}): Decision => ({
  id, verdict: 'allow', allowed: true, mode: 'enforce', rule: 'allowed', reason: 'ok', tool: 'read_file', summary: `s${id}`, ...over,
});

test('classify by the server\'s outcome and decidedBy, whatever the rule is called', () => {
  const cases: [Partial<Decision>, string][] = [
    [{ outcome: 'allow', decidedBy: 'rule', rule: 'allowed' }, 'allowed'],
    [{ outcome: 'deny', decidedBy: 'rule', verdict: 'deny', allowed: false, rule: 'not-in-allow-list' }, 'refused'],
    [{ outcome: 'deny', decidedBy: 'rule', verdict: 'deny', allowed: true, mode: 'warn', rule: 'not-in-allow-list' }, 'would-deny'],
    // Asked: a person answered, or the question ended unanswered; the rule's name does not matter.
    [{ outcome: 'ask', decidedBy: 'person', verdict: 'allow', rule: 'renamed-approval' }, 'asked'],
    [{ outcome: 'ask', decidedBy: 'person', verdict: 'deny', allowed: false, rule: 'human-denied' }, 'asked'],
    [{ outcome: 'ask', decidedBy: 'grant', verdict: 'allow', rule: 'human-approved' }, 'asked'],
    [{ outcome: 'ask', decidedBy: 'timeout', verdict: 'deny', allowed: false, rule: 'approval-timeout' }, 'asked'],
    [{ outcome: 'ask', decidedBy: 'session-closed', verdict: 'deny', allowed: false, rule: 'approval-cancelled' }, 'asked'],
    [{ outcome: 'ask', decidedBy: 'disconnected', verdict: 'deny', allowed: false, rule: 'no-approver' }, 'asked'],
    [{ outcome: 'ask', decidedBy: 'headless', verdict: 'deny', allowed: false, rule: 'needs-human' }, 'asked'],
    // Warn mode does not ask: the call went through as a would-deny.
    [{ outcome: 'ask', decidedBy: 'rule', verdict: 'deny', allowed: true, mode: 'warn', rule: 'needs-human' }, 'would-deny'],
    // A rule named like an approval decides nothing when the outcome says otherwise.
    [{ outcome: 'deny', decidedBy: 'rule', verdict: 'deny', allowed: false, rule: 'human-denied' }, 'refused'],
  ];
  for (const [over, want] of cases) assert.equal(classify(d('x', over)), want, JSON.stringify(over));
});

test('classify records without outcome (old tapes): decidedBy, else the rule', () => {
  assert.equal(classify(d('1')), 'allowed');
  assert.equal(classify(d('2', { verdict: 'deny', allowed: false, rule: 'not-in-allow-list' })), 'refused');
  assert.equal(classify(d('3', { verdict: 'deny', allowed: true, mode: 'warn', rule: 'not-in-allow-list' })), 'would-deny');
  for (const rule of ['human-approved', 'human-denied', 'approval-timeout', 'approval-cancelled', 'no-approver']) {
    assert.equal(classify(d('4', { verdict: rule === 'human-approved' ? 'allow' : 'deny', allowed: rule === 'human-approved', rule })), 'asked', rule);
  }
  assert.equal(classify(d('5', { verdict: 'deny', allowed: false, rule: 'whatever', decidedBy: 'shutdown' })), 'asked');
  assert.equal(classify(d('6', { verdict: 'deny', allowed: false, rule: 'tape-repaired', decidedBy: 'tape' })), 'refused');
});

test('tree items draw agent text inert: label and description on one line, tooltip literal', () => {
  const p = new DecisionsProvider(new DecisionStore());
  for (const h of hostile) {
    const dec = (x: string) => d('h', { tool: x, summary: x, reason: x, rule: x, mode: 'enforce', targets: [x, x], remedy: 'grant `x`', outcome: 'deny', decidedBy: 'rule', verdict: 'deny', allowed: false });
    const item = p.getTreeItem(dec(h));
    const label = String(item.label);
    // Tree labels and descriptions are never scanned for links: one line is what matters.
    assertPlain(label, [h], 'label', false);
    assertPlain(String(item.description), [h], 'description', false);
    const tip = item.tooltip as vscode.MarkdownString;
    assert.ok(!tip.isTrusted, 'the tooltip is not trusted');
    assert.ok(!tip.supportHtml, 'no HTML');
    assertInert(tip.value, (p.getTreeItem(dec('x')).tooltip as vscode.MarkdownString).value, [h], `tooltip with ${JSON.stringify(h)}`);
  }
  const tip = (p.getTreeItem(d('c', { summary: commandLink })).tooltip as vscode.MarkdownString).value;
  assert.ok(tip.includes(mdCode(commandLink)), 'the summary is in the tooltip, as code');
});

test('newest first, capped', () => {
  const s = new DecisionStore(3);
  for (const id of ['1', '2', '3', '4', '5']) s.add(d(id));
  assert.deepEqual(s.visible().map((x) => x.id), ['5', '4', '3']);
  assert.equal(s.byId('1'), undefined);
  assert.equal(s.byId('4')?.id, '4');
});

test('filters by class, rule and tool', () => {
  const s = new DecisionStore();
  s.add(d('1'));
  s.add(d('2', { verdict: 'deny', allowed: false, rule: 'not-in-allow-list', tool: 'bash' }));
  s.add(d('3', { verdict: 'deny', allowed: false, rule: 'human-denied', tool: 'deploy', outcome: 'ask', decidedBy: 'person' }));
  s.filter = { cls: 'refused' };
  assert.deepEqual(s.visible().map((x) => x.id), ['2']);
  s.filter = { rule: 'human-denied' };
  assert.deepEqual(s.visible().map((x) => x.id), ['3']);
  s.filter = { tool: 'read_file' };
  assert.deepEqual(s.visible().map((x) => x.id), ['1']);
  s.filter = { cls: 'asked', tool: 'bash' };
  assert.deepEqual(s.visible(), []);
  assert.equal(describeFilter({ cls: 'asked', tool: 'bash' }), 'asked, tool bash');
  s.filter = undefined;
  assert.equal(s.visible().length, 3);
});

test('tree items: icons, label, click opens the record; changes fire', () => {
  const p = new DecisionsProvider(new DecisionStore());
  let fired = 0;
  p.onDidChangeTreeData(() => fired++);
  p.add(d('1'));
  p.add(d('2', { verdict: 'deny', allowed: false, rule: 'not-in-allow-list', tool: 'bash' }));
  p.add(d('3', { verdict: 'deny', allowed: true, mode: 'warn', rule: 'read-only-effects', tool: 'write_file' }));
  p.add(d('4', { rule: 'human-approved', tool: 'deploy', summary: 'deploy prod', outcome: 'ask', decidedBy: 'person' }));
  assert.equal(fired, 4);
  const items = p.getChildren().map((x) => p.getTreeItem(x));
  assert.deepEqual(items.map((i) => i.label), ['deploy', 'write_file', 'bash', 'read_file']);
  assert.deepEqual(items.map((i) => (i.iconPath as vscode.ThemeIcon).id), ['question', 'warning', 'error', 'pass']);
  assert.equal(items[0].description, 'asked · human-approved · deploy prod');
  assert.equal(items[0].command?.command, 'admit.showDecision');
  assert.equal((items[0].command?.arguments?.[0] as Decision).id, '4');
  assert.equal(p.getChildren(d('4')).length, 0);
  p.setFilter({ cls: 'refused' });
  assert.equal(fired, 5);
  assert.deepEqual(p.getChildren().map((x) => x.id), ['2']);
});

test('the decision document is JSON that gives back every text exactly, under a name that cannot move it', () => {
  for (const h of hostile) {
    const dec = d(h, { tool: h, summary: h, reason: h, rule: h });
    const doc = decisionDocument(dec, { id: h, command: h });
    assert.match(doc.name, /^decision-[A-Za-z0-9._-]+\.json$/, doc.name);
    assert.doesNotMatch(doc.text.slice(0, -1), /[\u0000-\u0009\u000b-\u001f]/, 'controls are escaped');
    const back = JSON.parse(doc.text);
    assert.deepEqual([back.decision.tool, back.decision.summary, back.decision.reason, back.tape.command], [h, h, h, h]);
  }
});
