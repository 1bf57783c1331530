import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as vscode from 'vscode';
import { makeApi, unavailableVerdict } from '../src/api';
import type { Decision } from '../src/protocol';

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
