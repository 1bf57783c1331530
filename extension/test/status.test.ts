import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as vscode from 'vscode';
import type { AdmitState, Decision } from '../src/protocol';
import { noticeKey, untrustedNotice } from '../src/policyTrust';
import { errorNotices, StatusBar, statusCommand, statusText, statusTooltip } from '../src/status';
import { mdCode } from '../src/text';
import { assertInert, assertPlain, commandLink, hostile } from './hostile';
import type { MockStatusBarItem, ThemeColor as MockThemeColor } from './vscode-mock';

const state = (over: Partial<AdmitState> = {}): AdmitState => ({
  mode: 'enforce', effects: 'workspace-write', shell: 'analyze', roots: ['/w/a', '/w/b'],
  counts: { allowed: 3, denied: 1, wouldDeny: 0, pending: 0 }, tape: '/s/tape.jsonl', ...over,
});

test('status text for each mode and count', () => {
  const cases: { name: string; st: AdmitState; want: string }[] = [
    { name: 'enforce', st: state(), want: '$(shield) admit: enforce · workspace-write' },
    { name: 'warn read-only', st: state({ mode: 'warn', effects: 'read-only' }), want: '$(warning) admit: warn · read-only' },
    { name: 'off hides effects', st: state({ mode: 'off' }), want: '$(circle-slash) admit: off' },
    { name: 'pending shows', st: state({ counts: { allowed: 0, denied: 0, wouldDeny: 0, pending: 2 } }), want: '$(shield) admit: enforce · workspace-write · 2 pending' },
    { name: 'would-deny only in warn', st: state({ mode: 'warn', counts: { allowed: 0, denied: 0, wouldDeny: 7, pending: 1 } }), want: '$(warning) admit: warn · workspace-write · 1 pending · 7 would-deny' },
    { name: 'would-deny hidden in enforce', st: state({ counts: { allowed: 0, denied: 0, wouldDeny: 7, pending: 0 } }), want: '$(shield) admit: enforce · workspace-write' },
  ];
  for (const c of cases) assert.equal(statusText({ kind: 'running', state: c.st }), c.want, c.name);
  assert.equal(statusText({ kind: 'starting' }), '$(sync~spin) admit: starting');
  assert.equal(statusText({ kind: 'stopped', message: 'x' }), '$(error) admit: stopped');
});

test('tooltip lists roots, tape and the last decision', () => {
  const t = statusTooltip({
    kind: 'running', state: state(),
    lastDecision: { id: '1', verdict: 'deny', allowed: false, mode: 'enforce', rule: 'not-in-allow-list', reason: 'r', tool: 'bash', summary: 'rm -rf /' },
  });
  assert.deepEqual(t.commands, []);
  assert.match(t.markdown, /`\/w\/a`/);
  assert.match(t.markdown, /`\/w\/b`/);
  assert.match(t.markdown, /Tape: `\/s\/tape.jsonl`/);
  assert.match(t.markdown, /Last: deny `bash` `rm -rf \/` — `not-in-allow-list`/);
  const stopped = statusTooltip({ kind: 'stopped', message: 'crashed' });
  assert.match(stopped.markdown, /\[Restart\]\(command:admit\.restartServer\)/);
  assert.deepEqual(stopped.commands, ['admit.restartServer']);
});

test('tooltip: every text from the server or an agent is inert; only our own Restart link is a link', () => {
  for (const h of hostile) {
    const decision = (x: string): Decision => ({ id: '1', verdict: 'deny', allowed: false, mode: 'enforce', rule: x, reason: x, tool: x, summary: x });
    const st = (x: string) => state({ roots: [x, '/w/b'], tape: x, policy: x, policyError: x, tapeError: x });
    const running = (x: string) => statusTooltip({ kind: 'running', state: st(x), lastDecision: decision(x), restricted: true }).markdown;
    assertInert(running(h), running('x'), [h], `running tooltip with ${JSON.stringify(h)}`);
    const stopped = (x: string) => statusTooltip({ kind: 'stopped', message: x }).markdown;
    assertInert(stopped(h), stopped('x'), [h], `stopped tooltip with ${JSON.stringify(h)}`, ['command:admit.restartServer']);
    // The status text itself shows only fixed words and the protocol's values.
    const text = statusText({ kind: 'running', state: { ...st(h), mode: h as never, effects: h as never } });
    assert.equal(text, '$(question) admit: ? · ? · $(error) policy invalid · $(error) tape unwritable', JSON.stringify(h));
  }
});

test('an invalid policy file shows in the text, the tooltip and the colour', () => {
  const st = state({ policy: '/w/a/.admit/policy.json', policyError: 'allow: want a list of names, got 5' });
  assert.equal(statusText({ kind: 'running', state: st }), '$(shield) admit: enforce · workspace-write · $(error) policy invalid');
  assert.match(statusTooltip({ kind: 'running', state: st }).markdown, /\*\*The policy file cannot be used\*\* \(`\/w\/a\/\.admit\/policy\.json`\): allow\\: want a list of names, got 5/);
  const bar = new StatusBar();
  bar.setState(st);
  assert.equal(((bar.item as unknown as MockStatusBarItem).backgroundColor as unknown as MockThemeColor).id, 'statusBarItem.errorBackground');
});

test('Restricted Mode is said in the tooltip', () => {
  assert.match(statusTooltip({ kind: 'running', state: state(), restricted: true }).markdown, /Restricted Mode: this workspace is not trusted/);
  assert.doesNotMatch(statusTooltip({ kind: 'running', state: state() }).markdown, /Restricted Mode/);
});

test('click selects the mode, opens the waiting question (notifications silenced or not), or restarts a stopped server', () => {
  assert.equal(statusCommand({ kind: 'running', state: state() }), 'admit.selectMode');
  assert.equal(statusCommand({ kind: 'running', state: state({ counts: { allowed: 0, denied: 0, wouldDeny: 0, pending: 1 } }) }), 'admit.showApproval');
  assert.match(statusTooltip({ kind: 'running', state: state({ counts: { allowed: 0, denied: 0, wouldDeny: 0, pending: 1 } }) }).markdown, /Click to see the question that waits for you\./);
  assert.equal(statusCommand({ kind: 'starting' }), 'admit.selectMode');
  assert.equal(statusCommand({ kind: 'stopped', message: '' }), 'admit.restartServer');
});

test('StatusBar draws one left item with id admit.status and follows state', () => {
  const bar = new StatusBar();
  const item = bar.item as unknown as MockStatusBarItem;
  assert.equal(item.id, 'admit.status');
  assert.equal(item.alignment, vscode.StatusBarAlignment.Left);
  assert.equal(item.visible, true);
  assert.match(item.text, /starting/);
  bar.setState(state({ mode: 'warn' }));
  assert.equal(item.text, '$(warning) admit: warn · workspace-write');
  assert.equal(item.command, 'admit.selectMode');
  bar.setLastDecision({ id: '9', verdict: 'allow', allowed: true, mode: 'warn', rule: 'allowed', reason: '', tool: 'read_file' });
  const tip = item.tooltip as vscode.MarkdownString;
  assert.match(tip.value, /Last: allow `read_file`/);
  assert.equal(tip.isTrusted, false, 'a tooltip with agent text in it is not trusted');
  assert.equal(tip.supportHtml, false);
  bar.setLastDecision({ id: '10', verdict: 'deny', allowed: false, mode: 'warn', rule: 'x', reason: '', tool: commandLink });
  assert.equal((item.tooltip as vscode.MarkdownString).isTrusted, false);
  assertInert((item.tooltip as vscode.MarkdownString).value, (item.tooltip as vscode.MarkdownString).value.replace(mdCode(commandLink), '`x`'), [commandLink], 'status bar');
  bar.setStopped('gave up');
  assert.deepEqual((item.tooltip as vscode.MarkdownString).isTrusted, { enabledCommands: ['admit.restartServer'] });
  assert.equal(item.text, '$(error) admit: stopped');
  assert.equal(item.command, 'admit.restartServer');
  assert.equal((item.backgroundColor as unknown as MockThemeColor).id, 'statusBarItem.errorBackground');
  bar.setState(state({ counts: { allowed: 0, denied: 0, wouldDeny: 0, pending: 1 } }));
  assert.equal((item.backgroundColor as unknown as MockThemeColor).id, 'statusBarItem.warningBackground');
});

test('the policy and tape notifications are plain text: the repository\'s error cannot make a link', () => {
  for (const h of hostile) {
    const n = errorNotices(state({ policy: `/w/a/.admit/${h}`, policyError: h, tapeError: h }));
    assertPlain(n.policy ?? '', [h], `policy notice with ${JSON.stringify(h)}`);
    assertPlain(n.tape ?? '', [h], `tape notice with ${JSON.stringify(h)}`);
  }
  assert.deepEqual(errorNotices(state()), {});
  assert.match(errorNotices(state({ policy: '/w/a/.admit/policy.json', policyError: 'bad' })).policy ?? '', /^admit: the policy file \/w\/a\/\.admit\/policy\.json cannot be used, so every call is refused \(policy-invalid\) until it is fixed: bad$/);
});

test('the policy file\'s trust: untrusted and trusted in the text, each of the four in the tooltip, untrusted in colour', () => {
  const file = '/w/a/.admit/policy.json';
  const untrusted = state({ policy: file, policyTrust: 'untrusted', policyWidens: ['grants the tool "deploy", which the built-in policy does not', 'adds the program "make"'] });
  assert.equal(statusText({ kind: 'running', state: untrusted }), '$(shield) admit: enforce · workspace-write · $(workspace-untrusted) policy untrusted');
  assert.equal(statusText({ kind: 'running', state: state({ policy: file, policyTrust: 'trusted' }) }), '$(shield) admit: enforce · workspace-write · $(workspace-trusted) policy trusted');
  assert.equal(statusText({ kind: 'running', state: state({ policy: file, policyTrust: 'tightening' }) }), '$(shield) admit: enforce · workspace-write');
  assert.equal(statusText({ kind: 'running', state: state({ policy: 'built-in', policyTrust: 'built-in' }) }), '$(shield) admit: enforce · workspace-write');
  const t = statusTooltip({ kind: 'running', state: untrusted });
  assert.match(t.markdown, /\*\*The workspace policy file `\/w\/a\/\.admit\/policy\.json` is not trusted\*\*: it only tightens/);
  assert.match(t.markdown, /- grants the tool "deploy", which the built\\-in policy does not/);
  assert.match(t.markdown, /\[Review the policy file\]\(command:admit\.reviewPolicy\)/);
  assert.deepEqual(t.commands, ['admit.reviewPolicy']);
  assert.match(statusTooltip({ kind: 'running', state: state({ policy: file, policyTrust: 'trusted' }) }).markdown, /is trusted\*\* by you, in this exact version/);
  assert.match(statusTooltip({ kind: 'running', state: state({ policy: file, policyTrust: 'tightening' }) }).markdown, /only tightens the built-in policy, so it takes effect without your trust/);
  assert.match(statusTooltip({ kind: 'running', state: state({ policy: 'built-in', policyTrust: 'built-in' }) }).markdown, /The built-in policy is in force/);
  // An invalid file is said as such, not as untrusted.
  assert.doesNotMatch(statusText({ kind: 'running', state: { ...untrusted, policyError: 'bad' } }), /untrusted/);
  const bar = new StatusBar();
  bar.setState(untrusted);
  const item = bar.item as unknown as MockStatusBarItem;
  assert.equal((item.backgroundColor as unknown as MockThemeColor).id, 'statusBarItem.warningBackground');
  assert.deepEqual((item.tooltip as vscode.MarkdownString).isTrusted, { enabledCommands: ['admit.reviewPolicy'] });
  bar.setState(state({ policy: file, policyTrust: 'tightening' }));
  assert.equal(item.backgroundColor, undefined);
  assert.equal((item.tooltip as vscode.MarkdownString).isTrusted, false);
});

test('the untrusted file\'s words (they quote the repository) are inert in the tooltip and the notice; only the review link is a link', () => {
  for (const h of hostile) {
    const st = (x: string) => state({ policy: `/w/${x}/.admit/policy.json`, policyTrust: 'untrusted', policyWidens: [x, `grants the tool ${JSON.stringify(x)}`] });
    assertInert(statusTooltip({ kind: 'running', state: st(h) }).markdown, statusTooltip({ kind: 'running', state: st('x') }).markdown, [h], `trust tooltip with ${JSON.stringify(h)}`, ['command:admit.reviewPolicy']);
    assertPlain(untrustedNotice(st(h)), [], `untrusted notice with ${JSON.stringify(h)}`);
    // The status text never carries the file's words.
    assert.equal(statusText({ kind: 'running', state: st(h) }), '$(shield) admit: enforce · workspace-write · $(workspace-untrusted) policy untrusted');
  }
});

test('the untrusted notice is told once per new or changed file', () => {
  const file = '/w/a/.admit/policy.json';
  const a = state({ policy: file, policyTrust: 'untrusted', policyWidens: ['grants the tool "deploy", which the built-in policy does not'] });
  assert.equal(noticeKey(state({ policy: file, policyTrust: 'trusted' })), undefined);
  assert.equal(noticeKey(a), noticeKey({ ...a, counts: { allowed: 9, denied: 9, wouldDeny: 9, pending: 9 } }), 'counts change nothing');
  assert.notEqual(noticeKey(a), noticeKey({ ...a, policyWidens: ['adds the program "make"'] }), 'a change of what it widens is told');
  assert.match(untrustedNotice(a), /^admit: the workspace policy file \/w\/a\/\.admit\/policy\.json is new or changed and not trusted, so it only tightens the gate\. Trusting it would: grants the tool "deploy"/);
});

test("hooks switched off (the repository's files, chat.useHooks): a warning in the text, the colour and the tooltip", () => {
  const off = state({ hooksOff: [{ agent: 'copilot', file: '/w/a/.github/copilot/settings.json', setting: 'disableAllHooks: true' }] });
  assert.equal(statusText({ kind: 'running', state: off }), '$(shield) admit: enforce · workspace-write · $(warning) hooks off');
  const t = statusTooltip({ kind: 'running', state: off });
  assert.match(t.markdown, /\*\*Agents' hooks are switched off here\*\*/);
  assert.match(t.markdown, /- `copilot`: `\/w\/a\/\.github\/copilot\/settings\.json` sets `disableAllHooks: true`/);
  const useHooks = statusTooltip({ kind: 'running', state: state(), useHooksOff: "the workspace's settings" });
  assert.match(useHooks.markdown, /`chat\.useHooks` is `false` in the workspace's settings/);
  assert.equal(statusText({ kind: 'running', state: state(), useHooksOff: 'x' }), '$(shield) admit: enforce · workspace-write · $(warning) hooks off');
  assert.equal(statusText({ kind: 'running', state: state({ hooksOff: 'nonsense' as never }) }), '$(shield) admit: enforce · workspace-write', 'a malformed hooksOff is not drawn');
  const bar = new StatusBar();
  const item = bar.item as unknown as MockStatusBarItem;
  bar.setState(state());
  assert.equal(item.backgroundColor, undefined);
  bar.setUseHooksOff('your user settings');
  assert.equal((item.backgroundColor as unknown as MockThemeColor).id, 'statusBarItem.warningBackground');
  assert.match(item.text, /hooks off/);
  bar.setUseHooksOff(undefined);
  bar.setState(off);
  assert.equal((item.backgroundColor as unknown as MockThemeColor).id, 'statusBarItem.warningBackground');
  for (const h of hostile) {
    const md = (x: string) => statusTooltip({ kind: 'running', state: state({ hooksOff: [{ agent: x, file: x, setting: x }] }), useHooksOff: x }).markdown;
    assertInert(md(h), md('x'), [h], `hooks-off tooltip with ${JSON.stringify(h)}`);
  }
});

test('the tooltip lists the agents, connected or not, with each one\'s last decision; only Connect Agents is a trusted link', () => {
  const bar = new StatusBar();
  const item = bar.item as unknown as MockStatusBarItem;
  bar.setState(state());
  const last: Decision = { id: '1', verdict: 'allow', allowed: true, mode: 'enforce', rule: 'allowed', reason: '', tool: 'Bash', summary: 'npm test', agent: 'claude-code' };
  bar.setAgents([
    { name: 'Claude Code (claude-code)', key: 'claude-code', status: { host: 'claude-code', agent: 'Claude Code', installed: true, state: 'connected', connected: true, config: '', files: [] }, last },
    { name: 'Cursor (cursor)', key: 'cursor', status: { host: 'cursor', agent: 'Cursor', installed: true, state: 'not-connected', connected: false, config: '', files: [] } },
  ]);
  const tip = item.tooltip as vscode.MarkdownString;
  assert.match(tip.value, /- `Claude Code \(claude-code\)`: connected — last: allowed `Bash` `npm test`/);
  assert.match(tip.value, /- `Cursor \(cursor\)`: not connected/);
  assert.deepEqual(tip.isTrusted, { enabledCommands: ['admit.connectAgents'] });
});
