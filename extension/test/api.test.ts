import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as vscode from 'vscode';
import { makeApi, unavailableVerdict } from '../src/api';
import type { Decision } from '../src/protocol';
import { readSettings, resolveServerPath, serverOptions } from '../src/settings';

class Unavailable extends Error {}

test('each API method sends its admit/* request', async () => {
  const sent: [string, unknown][] = [];
  const api = makeApi(async (m, p) => (sent.push([m, p]), { ok: m }) as never, new vscode.EventEmitter<Decision>().event, (e) => e instanceof Unavailable);
  await api.check({ tool: 't' });
  await api.observe({ paths: ['a'] });
  await api.run({ command: 'ls' });
  await api.read({ path: 'a' });
  await api.edit({ path: 'a', oldText: 'x', newText: 'y', expectHash: 'h' });
  await api.write({ path: 'a', content: '' });
  await api.openSession({ label: 'l' });
  await api.closeSession({ session: 's' });
  assert.deepEqual(sent.map((s) => s[0]), ['admit/check', 'admit/observe', 'admit/run', 'admit/read', 'admit/edit', 'admit/write', 'admit/openSession', 'admit/closeSession']);
  assert.deepEqual(sent[0][1], { tool: 't' });
});

test('gated calls fail closed when the server is away; data calls reject', async () => {
  const api = makeApi(async () => { throw new Unavailable('gone'); }, new vscode.EventEmitter<Decision>().event, (e) => e instanceof Unavailable);
  for (const v of [await api.check({ tool: 't' }), await api.run({ command: 'ls' }), await api.write({ path: 'a', content: '' })]) {
    assert.equal(v.allowed, false);
    assert.equal(v.verdict, 'deny');
    assert.equal(v.rule, 'server-unavailable');
    const te = JSON.parse(v.toolError!);
    assert.equal(te.executed, false);
  }
  await assert.rejects(api.read({ path: 'a' }), /gone/);
  // Other errors (a bad param the server refused) are passed on, not turned into verdicts.
  const api2 = makeApi(async () => { throw new Error('-32602 tool is required'); }, new vscode.EventEmitter<Decision>().event, (e) => e instanceof Unavailable);
  await assert.rejects(api2.check({ tool: '' }), /-32602/);
});

test('onDidDecide is the server event', () => {
  const em = new vscode.EventEmitter<Decision>();
  const api = makeApi(async () => ({}) as never, em.event, () => false);
  const got: string[] = [];
  api.onDidDecide((d) => got.push(d.id));
  em.fire({ id: 'x', verdict: 'allow', allowed: true, mode: 'warn', rule: 'allowed', reason: '', tool: 't' });
  assert.deepEqual(got, ['x']);
  assert.match(unavailableVerdict('admit/check', new Error('boom')).reason, /boom.*Nothing was executed/);
});

test('settings become initialization options', () => {
  const vals: Record<string, unknown> = { mode: 'enforce', tape: '~/t.jsonl', approvalTimeoutMs: 5000 };
  const s = readSettings(<T>(k: string, f: T) => (k in vals ? (vals[k] as T) : f));
  assert.deepEqual(serverOptions(s, '/home/u'), { mode: 'enforce', effects: 'read-only', shell: 'analyze', approvalTimeoutMs: 5000, tape: '/home/u/t.jsonl' });
  assert.deepEqual(serverOptions(readSettings(<T>(_k: string, f: T) => f)), { mode: 'warn', effects: 'read-only', shell: 'analyze', approvalTimeoutMs: 120000 });
});

test('server binary: setting, else bundled, else PATH', () => {
  assert.equal(resolveServerPath('/opt/admit', '/ext', () => true), '/opt/admit');
  assert.equal(resolveServerPath('~/bin/admit', '/ext', () => true, '/h'), '/h/bin/admit');
  assert.equal(resolveServerPath('', '/ext', (p) => p === '/ext/bin/admit'), '/ext/bin/admit');
  assert.equal(resolveServerPath('', '/ext', () => false), 'admit');
});
