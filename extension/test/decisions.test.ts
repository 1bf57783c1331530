import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as vscode from 'vscode';
import { classify, DecisionsProvider, DecisionStore, describeFilter } from '../src/decisions';
import type { Decision } from '../src/protocol';

const d = (id: string, over: Partial<Decision> = {}): Decision => ({
  id, verdict: 'allow', allowed: true, mode: 'enforce', rule: 'allowed', reason: 'ok', tool: 'read_file', summary: `s${id}`, ...over,
});

test('classify: allowed, refused, would-deny, asked', () => {
  assert.equal(classify(d('1')), 'allowed');
  assert.equal(classify(d('2', { verdict: 'deny', allowed: false, rule: 'not-in-allow-list' })), 'refused');
  assert.equal(classify(d('3', { verdict: 'deny', allowed: true, mode: 'warn', rule: 'not-in-allow-list' })), 'would-deny');
  assert.equal(classify(d('4', { rule: 'human-approved' })), 'asked');
  assert.equal(classify(d('5', { verdict: 'deny', allowed: false, rule: 'human-denied' })), 'asked');
  assert.equal(classify(d('6', { verdict: 'deny', allowed: false, rule: 'approval-timeout' })), 'asked');
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
  s.add(d('3', { verdict: 'deny', allowed: false, rule: 'human-denied', tool: 'deploy' }));
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
  p.add(d('4', { rule: 'human-approved', tool: 'deploy', summary: 'deploy prod' }));
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
