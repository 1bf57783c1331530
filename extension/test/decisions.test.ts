import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as vscode from 'vscode';
import { decisionPage } from '../src/decisionPage';
import { agentOf, classify, clock, DecisionsProvider, DecisionStore, describeFilter, lookIcons, lookOf, lookWords } from '../src/decisions';
import type { Decision } from '../src/protocol';
import { mdCode, oneLine } from '../src/text';
import { assertInert, assertInertHtml, assertPlain, commandLink, hostile, links, pageText, tags } from './hostile';

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
    // Tree labels and descriptions are never scanned for links: one line is what matters.
    assertPlain(String(item.label), [], 'label', false);
    assertPlain(String(item.description), [], 'description', false);
    assert.ok(String(item.description).startsWith(oneLine(h).slice(0, 39)), `the tool leads the description: ${item.description}`);
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

test('each outcome has its own icon, colour and words', () => {
  const cases: [Partial<Decision>, string, string][] = [
    [{ outcome: 'allow', decidedBy: 'rule' }, 'allowed', 'allowed'],
    [{ outcome: 'ask', decidedBy: 'person', rule: 'human-approved' }, 'approved', 'asked: you allowed'],
    [{ outcome: 'ask', decidedBy: 'grant', rule: 'human-approved' }, 'approved', 'asked: allowed for the session'],
    [{ outcome: 'ask', decidedBy: 'person', verdict: 'deny', allowed: false, rule: 'human-denied' }, 'denied', 'asked: you denied'],
    [{ outcome: 'ask', decidedBy: 'timeout', verdict: 'deny', allowed: false, rule: 'approval-timeout' }, 'unanswered', 'asked: no answer in time'],
    [{ outcome: 'ask', decidedBy: 'headless', verdict: 'deny', allowed: false, rule: 'needs-human' }, 'unanswered', 'asked: nobody to ask'],
    [{ outcome: 'deny', decidedBy: 'rule', verdict: 'deny', allowed: false, rule: 'not-in-allow-list' }, 'refused', 'refused'],
    [{ outcome: 'deny', decidedBy: 'rule', verdict: 'deny', allowed: true, mode: 'warn', rule: 'not-in-allow-list' }, 'would-deny', 'would-deny'],
    // An old tape record: the rule tells.
    [{ verdict: 'deny', allowed: false, rule: 'human-denied' }, 'denied', 'asked: you denied'],
  ];
  for (const [over, look, words] of cases) {
    assert.equal(lookOf(d('x', over)), look, JSON.stringify(over));
    assert.equal(lookWords(d('x', over)), words, JSON.stringify(over));
  }
  const pairs = Object.values(lookIcons).map((i) => `${i.icon}/${i.color}`);
  assert.equal(new Set(pairs).size, pairs.length, 'no two outcomes look the same');
  assert.equal(new Set(Object.values(lookIcons).map((i) => i.color)).size, pairs.length, 'no two outcomes share a colour');
});

test('the agent: the decision\'s own, its context\'s, else its session', () => {
  assert.equal(agentOf(d('1', { agent: 'claude-code' })), 'claude-code');
  assert.equal(agentOf(d('1', { context: { agent: 'codex' } })), 'codex');
  assert.equal(agentOf(d('1', { session: 's3' })), 'session s3');
  assert.equal(agentOf(d('1', { session: 'default' })), undefined);
  const store = new DecisionStore();
  store.add(d('1', { session: 's3' }));
  assert.equal(store.annotate('1', 'copilot'), true);
  assert.equal(agentOf(store.byId('1')!), 'copilot');
  assert.equal(store.annotate('1', 'other'), false, 'a named agent stays');
});

test('rows: time and outcome first (never cut), then tool, agent and call; icons; click opens the page; changes fire', () => {
  const p = new DecisionsProvider(new DecisionStore());
  let fired = 0;
  p.onDidChangeTreeData(() => fired++);
  const at = '2026-12-01T10:42:07.000Z';
  p.add(d('1', { time: at }));
  p.add(d('2', { verdict: 'deny', allowed: false, rule: 'not-in-allow-list', tool: 'bash', time: at }));
  p.add(d('3', { verdict: 'deny', allowed: true, mode: 'warn', rule: 'read-only-effects', tool: 'write_file', time: at }));
  p.add(d('4', { rule: 'human-approved', tool: 'deploy', summary: 'deploy prod', outcome: 'ask', decidedBy: 'person', agent: 'claude-code', time: at }));
  assert.equal(fired, 4);
  const items = p.getChildren().map((x) => p.getTreeItem(x));
  const hhmmss = clock(at);
  assert.match(hhmmss, /^\d\d:\d\d:07$/);
  assert.deepEqual(items.map((i) => i.label), [`${hhmmss} asked: you allowed`, `${hhmmss} would-deny`, `${hhmmss} refused`, `${hhmmss} allowed`]);
  assert.deepEqual(items.map((i) => (i.iconPath as vscode.ThemeIcon).id), ['person', 'warning', 'error', 'pass']);
  assert.deepEqual(items.map((i) => ((i.iconPath as vscode.ThemeIcon).color as unknown as { id: string }).id), ['charts.blue', 'editorWarning.foreground', 'errorForeground', 'testing.iconPassed']);
  assert.equal(items[0].description, 'deploy · claude-code · deploy prod');
  assert.equal(items[0].command?.command, 'admit.showDecision');
  assert.equal((items[0].command?.arguments?.[0] as Decision).id, '4');
  assert.equal(p.getChildren(d('4')).length, 0);
  p.setFilter({ cls: 'refused' });
  assert.equal(fired, 5);
  assert.deepEqual(p.getChildren().map((x) => x.id), ['2']);
  // A decision without a time is stamped when it arrives.
  const s = new DecisionStore();
  s.add(d('t'));
  assert.ok(clock(s.byId('t')!.time));
  // The whole command is in the tooltip, however long.
  const long = 'x'.repeat(5000);
  const item = p.getTreeItem(d('l', { summary: long }));
  assert.ok(String(item.description).length < 400, 'the row is cut');
  assert.ok((item.tooltip as vscode.MarkdownString).value.includes(long), 'the tooltip is not');
});

test('the decision page: what was asked, what was decided, by which rule, what to do next', () => {
  const dec = d('9', { tool: 'Bash', verdict: 'deny', allowed: false, rule: 'unsupported-program', reason: 'program "make" is not in the table', outcome: 'deny', decidedBy: 'rule', remedy: 'describe `make` in `programs`', policyTrust: 'untrusted', session: 's1' });
  const rec = { id: '9', time: '2026-12-01T10:42:07.000Z', command: 'make -j8 all', cwd: '/w/app', context: { agent: 'claude-code' }, targets: ['/w/app'] };
  const html = decisionPage(dec, rec, 'AAAAAAAAAAAAAAAAAAAAAAAA');
  const text = pageText(html);
  for (const want of ['refused', 'What was asked', 'make -j8 all', 'claude-code', '/w/app', 'What was decided', 'it must not run it; nothing was executed', 'the policy, by rule', 'untrusted', 'By which rule', 'unsupported-program', 'program "make" is not in the table', 'What to do next', 'describe make in programs', 'The tape line']) {
    assert.ok(text.includes(want), `${want} in the page`);
  }
  assert.match(html, /<p id="remedy">describe <code>make<\/code> in <code>programs<\/code><\/p>/);
  assert.deepEqual(links(html), [], 'no link at all');
  // Without a remedy the page still says what to do next.
  assert.match(pageText(decisionPage(d('a', { outcome: 'ask', decidedBy: 'timeout', verdict: 'deny', allowed: false, rule: 'approval-timeout' }), undefined, 'AAAAAAAAAAAAAAAAAAAAAAAA')), /refused because nobody answered/);
});

test('the decision page draws every text inert', () => {
  for (const h of hostile) {
    const dec = (x: string) => d('h', { tool: x, summary: x, reason: x, rule: x, session: x, remedy: 'grant `deploy`', outcome: 'deny', decidedBy: 'rule', verdict: 'deny', allowed: false });
    const rec = (x: string) => ({ id: 'h', command: x, cwd: x, time: x, context: { agent: x }, targets: [x] });
    assertInertHtml(decisionPage(dec(h), rec(h), 'AAAAAAAAAAAAAAAAAAAAAAAA'), decisionPage(dec('x'), rec('x'), 'AAAAAAAAAAAAAAAAAAAAAAAA'), [h], `decision page with ${JSON.stringify(h)}`);
    // The server's remedy is prose with code spans: whatever it holds, only text and <code>.
    const withRemedy = (x: string) => decisionPage(d('r', { remedy: x, verdict: 'deny', allowed: false }), undefined, 'AAAAAAAAAAAAAAAAAAAAAAAA');
    const noCode = (html: string) => tags(html).filter((t) => !/^<\/?code$/.test(t));
    assert.deepEqual(noCode(withRemedy(h)), noCode(withRemedy('x')), `remedy ${JSON.stringify(h)}`);
    assert.deepEqual(links(withRemedy(h)), []);
  }
});
