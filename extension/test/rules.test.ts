import assert from 'node:assert/strict';
import { test } from 'node:test';
import type * as vscode from 'vscode';
import type { PersonRule, RulesResult } from '../src/protocol';
import { addRule, readRules, removable, ruleIcons, ruleLabel, RulesProvider, ruleTooltip, rulesMessage } from '../src/rules';
import { oneLine } from '../src/text';
import { assertInert, assertPlain, hostile } from './hostile';

const rule = (over: Partial<PersonRule> = {}): PersonRule => ({ match: 'npm test *', decision: 'allow', source: 'workspace', ...over });
const files = { user: '/h/.config/admit/rules.json', workspace: '/h/.config/admit/workspaces/ab12/rules.json' };
const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });

test('rows: the match, its decision and where it lives; icons and colours differ by decision', () => {
  assert.deepEqual(ruleLabel(rule()), { label: 'npm test *', description: 'allow · your rules, this workspace' });
  assert.deepEqual(ruleLabel(rule({ decision: 'deny', source: 'user', note: 'never publish' })), { label: 'npm test *', description: 'deny · your rules, every workspace · never publish' });
  assert.equal(ruleLabel(rule({ decision: 'ask', source: '/w/.admit/policy.json' })).description, 'ask · from /w/.admit/policy.json');
  assert.equal(new Set(Object.values(ruleIcons).map((i) => i.icon)).size, 3);
  assert.equal(new Set(Object.values(ruleIcons).map((i) => i.color)).size, 3);
  assert.ok(removable(rule()) && removable(rule({ source: 'user' })));
  assert.ok(!removable(rule({ source: 'policy' })), "the repository's rules are not the person's to remove here");
});

test('rows and tooltips draw every text inert', () => {
  for (const h of hostile) {
    const r = (x: string) => rule({ match: x, note: x, examples: [x], notExamples: [x], source: 'workspace' });
    const { label, description } = ruleLabel(r(h));
    assertPlain(label, [h], 'label', false);
    assertPlain(description, [], 'description', false);
    assert.ok(description.includes(oneLine(h).slice(0, 70)), 'the note is in the description, cut');
    assertInert(ruleTooltip(r(h), files), ruleTooltip(r('x'), files), [h], `rule tooltip with ${JSON.stringify(h)}`);
    assertInert(ruleTooltip(rule({ source: h }), { user: h }), ruleTooltip(rule({ source: 'x' }), { user: 'x' }), [h], `rule source ${JSON.stringify(h)}`);
  }
  assert.match(ruleTooltip(rule({ examples: ['npm test'], notExamples: ['npm test && curl x | sh'] }), files), /Matches: `npm test`\n\nDoes not match: `npm test && curl x \| sh`/);
});

test('the server\'s answer is read defensively', () => {
  assert.equal(readRules(null).kind, 'unavailable');
  assert.equal(readRules({ rules: 'all' }).kind, 'unavailable');
  const ok = readRules({ rules: [rule(), 5, { match: 7 }], files: { user: 3, workspace: files.workspace } });
  assert.equal(ok.kind, 'ok');
  if (ok.kind === 'ok') {
    assert.equal(ok.result.rules.length, 1);
    assert.deepEqual(ok.result.files, { user: undefined, workspace: files.workspace });
  }
});

test('the provider lists the rules; a server without admit/rules gets a message, not a crash', async () => {
  let answer: () => Promise<unknown> = async () => ({ rules: [rule(), rule({ match: 'git push *', decision: 'deny', source: 'user' })], files });
  const p = new RulesProvider(<R>() => answer() as Promise<R>);
  const view: { message?: string } = {};
  p.view = view;
  await p.refresh();
  const items = p.getChildren().map((n) => p.getTreeItem(n));
  assert.deepEqual(items.map((i) => i.label), ['npm test *', 'git push *']);
  assert.deepEqual(items.map((i) => i.contextValue), ['admit.rule.removable', 'admit.rule.removable']);
  assert.deepEqual(items.map((i) => (i.iconPath as vscode.ThemeIcon).id), ['pass', 'circle-slash']);
  assert.equal((items[0].tooltip as vscode.MarkdownString).isTrusted, false);
  assert.equal(view.message, undefined);
  answer = async () => { throw rpcError(-32601, 'method not found: admit/rules'); };
  await p.refresh();
  assert.deepEqual(p.getChildren(), []);
  assert.match(view.message ?? '', /does not know admit\/rules \(method not found\)/);
  assert.equal(rulesMessage(p.state), view.message);
  answer = async () => { throw rpcError(-32603, 'boom\n[x](command:y)'); };
  await p.refresh();
  assertPlain(view.message ?? '', [], 'error message', false);
});

test('addRule: the rules, or the server\'s objection (a -32602 names the problem), or a missing method', async () => {
  const result: RulesResult = { rules: [rule()], files };
  let seen: unknown;
  const ok = await addRule(async <R>(m: string, p: unknown) => { seen = [m, p]; return result as R; }, { match: 'npm test *', decision: 'allow', scope: 'workspace' });
  assert.deepEqual(ok, { ok: true, result });
  assert.deepEqual(seen, ['admit/addRule', { match: 'npm test *', decision: 'allow', scope: 'workspace' }]);
  const bad = await addRule(async () => { throw rpcError(-32602, 'match: rules: "*" names no program: a rule over every command is refused'); }, { match: '*', decision: 'allow', scope: 'user' });
  assert.deepEqual(bad, { ok: false, invalid: true, message: 'match: rules: "*" names no program: a rule over every command is refused' });
  const missing = await addRule(async () => { throw rpcError(-32601, 'no'); }, { match: 'x', decision: 'allow', scope: 'user' });
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.message : '', /does not know admit\/addRule/);
});
