import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as vscode from 'vscode';
import type { AdmitState } from '../src/protocol';
import { StatusBar, statusCommand, statusText, statusTooltip } from '../src/status';
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
  assert.match(t, /`\/w\/a`/);
  assert.match(t, /`\/w\/b`/);
  assert.match(t, /Tape: `\/s\/tape.jsonl`/);
  assert.match(t, /Last: deny `bash` rm -rf \/ — `not-in-allow-list`/);
  assert.match(statusTooltip({ kind: 'stopped', message: 'crashed' }), /command:admit.restartServer/);
});

test('click selects the mode, or restarts a stopped server', () => {
  assert.equal(statusCommand({ kind: 'running', state: state() }), 'admit.selectMode');
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
  assert.match((item.tooltip as vscode.MarkdownString).value, /Last: allow `read_file`/);
  bar.setStopped('gave up');
  assert.equal(item.text, '$(error) admit: stopped');
  assert.equal(item.command, 'admit.restartServer');
  assert.equal((item.backgroundColor as unknown as MockThemeColor).id, 'statusBarItem.errorBackground');
  bar.setState(state({ counts: { allowed: 0, denied: 0, wouldDeny: 0, pending: 1 } }));
  assert.equal((item.backgroundColor as unknown as MockThemeColor).id, 'statusBarItem.warningBackground');
});
