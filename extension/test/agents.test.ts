import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as vscode from 'vscode';
import {
  AgentBook, agentPicks, agentsTooltip, changeDialog, connectButtons, diffTitle, docName, hooksOffNotice, hooksOffTooltip,
  isChangedSinceShown, rowWords, stateWords, useHooksOffWhere,
} from '../src/agents';
import { agentNode, agentsGroup, agentTooltip } from '../src/agentsView';
import { DecisionsProvider, DecisionStore } from '../src/decisions';
import type { AgentChange, AgentsResult, AgentStatus, Decision } from '../src/protocol';
import { assertInert, assertPlain, commandLink, hostile } from './hostile';

const change = (path = '/home/me/.claude/settings.json'): AgentChange => ({
  diff: '--- a\n+++ b\n', sum: 'sha256:abc', files: [{ path, before: '{"model":"opus"}\n', after: '{"model":"opus","hooks":{}}\n' }],
});

const agent = (over: Partial<AgentStatus> = {}): AgentStatus => ({
  host: 'claude-code', agent: 'Claude Code', installed: true, state: 'not-connected', connected: false,
  config: '/home/me/.claude/settings.json', files: ['/home/me/.claude/settings.json'], change: change(), ...over,
});

const survey = (agents: AgentStatus[]): AgentsResult => ({ binary: '/home/me/.local/share/admit/bin/admit', agents });

test("each state in words; the person's own switch that turns hooks off is said", () => {
  assert.equal(stateWords(agent()), 'not connected');
  assert.equal(stateWords(agent({ installed: false })), 'not found on this machine');
  assert.equal(stateWords(agent({ state: 'connected', connected: true })), 'connected');
  assert.equal(stateWords(agent({ state: 'connected', connected: true, inert: 'not trusted' })), 'connected, not trusted: inert');
  assert.match(stateWords(agent({ state: 'stale', binary: '/gone/admit' })), /stale: its hook runs \/gone\/admit, which is gone/);
  assert.match(stateWords(agent({ state: 'outdated' })), /^outdated/);
  assert.match(stateWords(agent({ state: 'unreadable' })), /changes nothing/);
  assert.match(stateWords(agent({ state: 'unsupported' })), /by hand/);
  const off = agent({ hooksOff: 'disableAllHooks is true in /home/me/.claude/settings.json' });
  assert.match(rowWords({ name: 'Claude Code', key: 'claude-code', status: off }), /not connected · hooks off · no decision yet/);
});

test('the pick list: installed agents first, each with the change it shows; disconnect lists only agents holding admit\'s entries', () => {
  const r = survey([
    agent({ host: 'kiro', agent: 'Kiro', installed: false, change: change('/home/me/.kiro/hooks/admit.json') }),
    agent(),
    agent({ host: 'cursor', agent: 'Cursor', state: 'connected', connected: true, change: undefined, undo: change('/home/me/.cursor/hooks.json') }),
  ]);
  const picks = agentPicks(r, 'connect');
  assert.deepEqual(picks.map((p) => p.host), ['claude-code', 'cursor', 'kiro']);
  assert.equal(picks[0].label, '$(debug-disconnect) Claude Code (claude-code)');
  assert.equal(picks[0].detail, 'write /home/me/.claude/settings.json');
  assert.equal(picks[0].change?.sum, 'sha256:abc');
  assert.equal(picks[1].change, undefined, 'connected as admit writes it: nothing to write');
  assert.equal(picks[1].detail, 'nothing to change');
  const undo = agentPicks(r, 'disconnect');
  assert.deepEqual(undo.map((p) => p.host), ['cursor']);
  assert.match(undo[0].detail!, /take admit's entries out of \/home\/me\/.cursor\/hooks.json/);
});

test("the question: the first button (Enter) writes nothing, every line is plain, the files and the binary are named whole", () => {
  for (const dir of ['connect', 'disconnect'] as const) {
    const d = changeDialog(agent({ notes: ['trust it in /hooks'] }), change(), '/home/me/.local/share/admit/bin/admit', dir);
    assert.deepEqual(d.buttons, [connectButtons[dir].keep, connectButtons[dir].yes]);
    assert.ok(d.detail.includes('/home/me/.claude/settings.json'));
    if (dir === 'connect') {
      assert.ok(d.detail.includes('/home/me/.local/share/admit/bin/admit'));
      assert.ok(d.detail.includes('trust it in /hooks'));
    }
  }
  assert.equal(isChangedSinceShown('sum: the configuration changed since the change was shown: show it again (admit/agents)'), true);
  assert.equal(isChangedSinceShown('binary: no such file'), false);
  assert.equal(docName('/home/me/.claude/settings.json', 'after'), 'after-settings.json.txt');
  assert.equal(docName('C:\\Users\\me\\.copilot\\hooks\\admit.json', 'now'), 'now-admit.json.txt');
});

test('the pick list, the question, the titles and the notices draw the files\' texts and the server\'s words inert', () => {
  for (const h of hostile) {
    const a = agent({ agent: h, host: h, problem: h, hooksOff: h, notes: [h], missingBinary: h, change: change(h) });
    const [p] = agentPicks(survey([a]), 'connect');
    for (const s of [p.label, p.description, p.detail ?? '']) assert.doesNotMatch(s.replace(/^\$\([a-z-]+\) /, ''), /\$\(|[\n\r\u202e]/, JSON.stringify(h));
    const d = changeDialog(a, change(h), h, 'connect');
    assertPlain(d.message, [], `dialog message ${JSON.stringify(h)}`);
    for (const line of d.detail.split('\n')) assertPlain(line, [], `dialog detail ${JSON.stringify(h)}`);
    assertPlain(diffTitle(a, h, 'connect'), [], `diff title ${JSON.stringify(h)}`);
    assert.match(docName(h, 'now'), /^now-[A-Za-z0-9._-]+\.txt$/);
    const off = { files: [{ agent: h, file: h, setting: h }], useHooksOff: h };
    assertPlain(hooksOffNotice(off), [], `hooks-off notice ${JSON.stringify(h)}`);
    const md = (x: string) => hooksOffTooltip({ files: [{ agent: x, file: x, setting: x }], useHooksOff: x })!;
    assertInert(md(h), md('x'), [h], `hooks-off tooltip ${JSON.stringify(h)}`);
    const dec = (x: string): Decision => ({ id: '1', verdict: 'allow', allowed: true, mode: 'enforce', rule: 'allowed', reason: x, tool: x, summary: x, agent: x });
    const rows = (x: string) => [{ name: x, key: x, status: agent({ agent: x, host: x, hooksOff: x, problem: x, config: x, binary: x }), last: dec(x) }];
    const tip = (x: string) => agentsTooltip(rows(x)).markdown;
    assertInert(tip(h), tip('x'), [h], `agents tooltip ${JSON.stringify(h)}`, ['command:admit.connectAgents']);
    assertInert(agentTooltip(rows(h)[0]), agentTooltip(rows('x')[0]), [h], `agent row tooltip ${JSON.stringify(h)}`);
    assert.doesNotMatch(rowWords(rows(h)[0]), /[\n\r\u202e]/);
  }
  assertInert(agentsTooltip([{ name: commandLink, key: 'k' }]).markdown, agentsTooltip([{ name: 'x', key: 'k' }]).markdown, [commandLink], 'a link as an agent name', ['command:admit.connectAgents']);
});

test('the book: agents installed, connected or seen, each with its last decision; agents named only by decisions after them', () => {
  const b = new AgentBook();
  b.setSurvey(survey([
    agent({ state: 'connected', connected: true }),
    agent({ host: 'kiro', agent: 'Kiro', installed: false }),
    agent({ host: 'cursor', agent: 'Cursor', installed: false, state: 'stale' }),
  ]));
  const d = (id: string, agentName: string, over: Partial<Decision> = {}): Decision => ({ id, verdict: 'allow', allowed: true, mode: 'enforce', rule: 'allowed', reason: '', tool: 'Bash', summary: 'npm test', agent: agentName, time: '2026-12-01T10:42:07.000Z', ...over });
  b.decided(d('1', 'claude-code'));
  b.decided(d('2', 'claude-code', { verdict: 'deny', allowed: false, rule: 'not-in-allow-list', summary: 'rm -rf /' }));
  b.decided(d('3', 'e2e-fixture'));
  b.decided({ ...d('4', ''), agent: undefined });
  const rows = b.rows();
  assert.deepEqual(rows.map((r) => r.key), ['claude-code', 'cursor', 'e2e-fixture'], 'kiro: not installed, not connected, never seen');
  assert.equal(rows[0].last?.id, '2');
  assert.match(rowWords(rows[0]), /^connected · last: refused Bash rm -rf \/ at \d\d:\d\d:07$/);
  assert.match(rowWords(rows[2]), /^calls through the editor · last: allowed Bash npm test/);
  b.update(agent({ state: 'not-connected', connected: false }));
  assert.match(rowWords(b.rows()[0]), /^not connected/);
  // The tooltip links to Connect Agents while an agent is left to connect, and trusts that command only.
  const t = agentsTooltip(b.rows());
  assert.deepEqual(t.commands, ['admit.connectAgents']);
  assert.match(t.markdown, /- `Claude Code \(claude-code\)`: not connected — last: refused `Bash` `rm -rf \/`/);
  assert.deepEqual(agentsTooltip([{ name: 'C', key: 'c', status: agent({ state: 'connected', connected: true }) }]).commands, []);
});

test('the view: an Agents node above the decisions, a row per agent that opens its last decision', () => {
  const p = new DecisionsProvider(new DecisionStore());
  const last: Decision = { id: '9', verdict: 'allow', allowed: true, mode: 'enforce', rule: 'allowed', reason: '', tool: 'Read', agent: 'claude-code' };
  p.add(last);
  p.setHead(agentsGroup([
    { name: 'Claude Code (claude-code)', key: 'claude-code', status: agent({ state: 'connected', connected: true }), last },
    { name: 'Copilot (copilot)', key: 'copilot', status: agent({ host: 'copilot', agent: 'Copilot', hooksOff: 'disableAllHooks in ~/.copilot/settings.json' }) },
  ]));
  const top = p.getChildren();
  assert.equal(top.length, 2);
  const group = p.getTreeItem(top[0]);
  assert.equal(group.label, 'Agents');
  assert.equal(group.description, '1 connected');
  assert.equal(group.collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
  const rows = p.getChildren(top[0]).map((n) => p.getTreeItem(n));
  assert.deepEqual(rows.map((r) => r.label), ['Claude Code (claude-code)', 'Copilot (copilot)']);
  assert.match(String(rows[0].description), /^connected · last: allowed Read/);
  assert.deepEqual(rows[0].command, { command: 'admit.showDecision', title: 'Show Decision', arguments: [last] });
  assert.equal((rows[1].iconPath as vscode.ThemeIcon).id, 'circle-slash', 'hooks off has its own icon');
  assert.equal(rows[1].command?.command, 'admit.connectAgents');
  assert.equal((p.getTreeItem(top[1]).command?.arguments?.[0] as Decision).id, '9', 'the decisions follow');
  assert.equal(agentNode({ name: 'x', key: 'x' }).item().id, 'admit.agent:x');
  p.setHead(agentsGroup([]));
  assert.equal(p.getChildren().length, 1, 'no agents: no node');
});

test("chat.useHooks: off where its most specific value is false; a value that turns it on again wins", () => {
  assert.equal(useHooksOffWhere(undefined), undefined);
  assert.equal(useHooksOffWhere({ defaultValue: true }), undefined);
  assert.equal(useHooksOffWhere({ defaultValue: true, workspaceValue: false }), "the workspace's settings");
  assert.equal(useHooksOffWhere({ defaultValue: true, globalValue: false }), 'your user settings');
  assert.equal(useHooksOffWhere({ globalValue: false, workspaceValue: true }), undefined);
  assert.equal(useHooksOffWhere({ workspaceFolderValue: false, workspaceValue: true }), "a folder's .vscode/settings.json");
});
