import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as vscode from 'vscode';
import { autoConfirmedBy, humanFloorMs, isProbeAgent, LmTools, probeAgent, type LmToolsHost } from '../src/lmTools';
import type { ApprovalAnswer, ApproveParams } from '../src/protocol';
import { checkArgs, confirmation, gateCall, questionKey, resultText, runText, toolNames, type GateCall } from '../src/toolCalls';
import { assertInert, hostile } from './hostile';
import { CancellationTokenSource, settings, tools } from './vscode-mock';

const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const none = () => undefined;

test('the arguments are read strictly: an unknown or mistyped argument is an error that names it', () => {
  assert.deepEqual(checkArgs('admit_read', { path: 'a.txt' }), { args: { path: 'a.txt' } });
  assert.match((checkArgs('admit_read', { path: 'a', pth: 'b' }) as { error: string }).error, /unknown argument "pth"/);
  assert.match((checkArgs('admit_run', {}) as { error: string }).error, /argument command is required/);
  assert.match((checkArgs('admit_run', { command: 'ls', timeoutMs: 1.5 }) as { error: string }).error, /timeoutMs must be a positive integer/);
  assert.match((checkArgs('admit_search', { pattern: 'x', ignoreCase: 'yes' }) as { error: string }).error, /ignoreCase must be a boolean/);
  assert.match((checkArgs('admit_read', ['a']) as { error: string }).error, /must be an object/);
  // The manifest's schemas name exactly these arguments, and refuse any other.
  for (const t of pkg.contributes.languageModelTools) {
    const props = Object.keys(t.inputSchema.properties);
    const input = Object.fromEntries(props.map((k) => [k, t.inputSchema.properties[k].type === 'string' ? 'x' : t.inputSchema.properties[k].type === 'boolean' ? true : 5]));
    assert.ok('args' in checkArgs(t.name, input), `${t.name}: every schema property is taken`);
    assert.equal(t.inputSchema.additionalProperties, false, t.name);
    for (const r of t.inputSchema.required) {
      const rest = { ...input };
      delete rest[r];
      assert.ok('error' in checkArgs(t.name, rest), `${t.name}: ${r} is required`);
    }
  }
});

test('each tool becomes the admit call it names; search is grep as an argv that no shell reads, with the pattern after -e', () => {
  const hashes = new Map([['src/a.ts', 'sha256:aa']]);
  const hashOf = (p: string) => hashes.get(p);
  let c = gateCall('admit_search', { pattern: '-rf; rm -rf /', path: 'src', ignoreCase: true, include: '*.ts' }, hashOf) as GateCall;
  assert.equal(c.method, 'admit/run');
  assert.deepEqual(c.params, { argv: ['grep', '-rnI', '--exclude-dir=.git', '-i', '--include=*.ts', '-e', '-rf; rm -rf /', '--', 'src'] });
  assert.deepEqual(c.check, { tool: 'admit.run', argv: (c.params as { argv: string[] }).argv });
  c = gateCall('admit_run', { command: 'npm test', cwd: 'app' }, hashOf) as GateCall;
  assert.deepEqual([c.method, c.params, c.check], ['admit/run', { command: 'npm test', cwd: 'app' }, { tool: 'admit.run', command: 'npm test', cwd: 'app' }]);
  // An edit is bound to the bytes read: the hash the tools last read for the path, or the model's.
  c = gateCall('admit_edit', { path: 'src/a.ts', oldText: 'a', newText: 'bb' }, hashOf) as GateCall;
  assert.deepEqual(c.params, { path: 'src/a.ts', oldText: 'a', newText: 'bb', replaceAll: false, expectHash: 'sha256:aa' });
  assert.deepEqual(c.check, { tool: 'admit.edit', args: { path: 'src/a.ts', oldText: 1, newText: 2, replaceAll: false, expectHash: 'sha256:aa' } });
  assert.match((gateCall('admit_edit', { path: 'b.ts', oldText: 'a', newText: 'b' }, hashOf) as { error: string }).error, /read b.ts with admit_read first/);
  c = gateCall('admit_write', { path: 'new.txt', content: 'hi' }, hashOf) as GateCall;
  assert.deepEqual(c.params, { path: 'new.txt', content: 'hi' }, 'a new file: no hash');
  c = gateCall('admit_read', { path: 'a.txt' }, hashOf) as GateCall;
  assert.deepEqual([c.method, c.params, c.check], ['admit/read', { path: 'a.txt' }, { tool: 'admit.read', args: { path: 'a.txt' } }]);
  assert.deepEqual([...toolNames].sort(), pkg.contributes.languageModelTools.map((t: { name: string }) => t.name).sort());
});

test('the confirmation holds the whole command or path and why admit asks, every text literal', () => {
  const call = gateCall('admit_run', { command: 'x' }, none) as GateCall;
  const c = confirmation(call, { tool: 'admit.run', command: 'rm -rf build && make', targets: ['/w/build'], reason: 'needs a person', cwd: '/w', confinement: 'landlock' });
  assert.equal(c.title, 'admit: allow this tool to run a command?');
  for (const want of ['`rm -rf build && make`', '`/w/build`', 'Why admit asks: needs a person', 'In: `/w`']) assert.ok(c.message.includes(want), want);
  for (const h of hostile) {
    const md = (x: string) => confirmation(call, { tool: 'admit.run', command: x, targets: [x], reason: x, cwd: x, confinement: x }).message;
    assertInert(md(h), md('x'), [h], `confirmation with ${JSON.stringify(h)}`);
  }
});

test('results: a run says its exit code, output and changes; a search without a match says so', () => {
  const run = gateCall('admit_run', { command: 'false' }, none) as GateCall;
  assert.equal(runText({ ran: true, exitCode: 1, stdout: 'out\n', stderr: 'err', confinement: 'landlock', effects: { added: ['/w/n'] }, verified: false, detail: 'the command exited 1' }),
    'exit code 1 (confined: landlock)\nout\nstderr:\nerr\nchanged: +/w/n\nnot verified: the command exited 1\n');
  assert.equal(resultText(run, { ran: false, detail: 'not run: x' }), 'not run: not run: x');
  assert.equal(runText({ ran: true, exitCode: 0, stdout: 'notes.txt:1:TODO\n', hidden: ['/w/.env'] }),
    'exit code 0\nhidden from the run (read as empty, as secrets): /w/.env\nnotes.txt:1:TODO\n');
  const search = gateCall('admit_search', { pattern: 'nothing' }, none) as GateCall;
  assert.match(resultText(search, { ran: true, exitCode: 1, stdout: '' }), /^exit code 1\nno match\n/);
  const edit = gateCall('admit_edit', { path: 'a', oldText: 'x', newText: 'y', expectHash: 'h' }, none) as GateCall;
  assert.equal(resultText(edit, { verified: true, targets: ['/w/a'], size: 3, detail: 'read back' }), 'edited /w/a (3 bytes): read back');
  assert.match(resultText(edit, { verified: false, detail: 'mismatch' }), /not edited: mismatch/);
});

test("VS Code's automatic confirmations are found where they are set, and a repository's counts", () => {
  const layers = new Map<string, Record<string, unknown>>();
  const read = (k: string) => layers.get(k);
  assert.equal(autoConfirmedBy(read), undefined);
  layers.set('chat.tools.autoApprove', { defaultValue: false, workspaceValue: true });
  assert.equal(autoConfirmedBy(read), "chat.tools.autoApprove in the workspace's settings");
  layers.set('chat.tools.autoApprove', { globalValue: { admit_run: true } });
  assert.equal(autoConfirmedBy(read), 'chat.tools.autoApprove in your user settings');
  layers.set('chat.tools.autoApprove', { globalValue: { other_tool: true } });
  assert.equal(autoConfirmedBy(read), undefined);
  layers.set('chat.tools.global.autoApprove', { globalValue: true });
  assert.equal(autoConfirmedBy(read), 'chat.tools.global.autoApprove in your user settings');
  layers.clear();
  layers.set('chat.permissions.default', { globalValue: 'bypassApprovals' });
  assert.match(autoConfirmedBy(read)!, /^chat.permissions.default "bypassApprovals"/);
  assert.equal(isProbeAgent(probeAgent('0123456789ab')), true);
  assert.equal(isProbeAgent('VS Code tools'), false);
  assert.equal(isProbeAgent('VS Code tools probe x; rm'), false);
});

/** A scripted server for the tools: each request is answered by the test, and may ask first. */
class FakeServer {
  calls: { method: string; params: Record<string, unknown>; token?: vscode.CancellationToken }[] = [];
  dryRun = false;
  /** What a method answers; asking: the question the server puts to the editor first. */
  answer: (method: string, params: Record<string, unknown>) => { result?: unknown; ask?: Partial<ApproveParams> } = () => ({ result: { verdict: 'allow', allowed: true, rule: 'allowed' } });
  intercept!: (p: ApproveParams, token: vscode.CancellationToken) => Promise<ApprovalAnswer> | undefined;
  /** The questions the tools did not claim (admit's own prompt would ask them). */
  unclaimed: ApproveParams[] = [];
  answers: ApprovalAnswer[] = [];
  withdrawn = 0;
  clock = 1_000_000;
  logs: string[] = [];
  annotated: string[] = [];
  seq = 0;

  host(): LmToolsHost {
    return {
      request: async <R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R> => {
        const p = params as Record<string, unknown>;
        this.calls.push({ method, params: p, token });
        if (p.dryRun && !this.dryRun) throw Object.assign(new Error('dryRun: unknown field'), { code: -32602 });
        const a = this.answer(method, p);
        if (a.ask) {
          const q = { id: `q${++this.seq}`, session: 'default', tool: String(p.tool ?? 'admit.run'), summary: '', reason: 'needs a person', ...a.ask } as ApproveParams;
          const ctx = p.context as { agent?: string } | undefined;
          if (ctx?.agent) q.agent = ctx.agent;
          const cts = new CancellationTokenSource();
          // The server withdraws its question when the request is cancelled, then answers the request.
          const withdrawn = new Promise<void>((r) => token?.onCancellationRequested(() => { this.withdrawn++; cts.cancel(); r(); }));
          const mine = this.intercept(q, cts.token as unknown as vscode.CancellationToken);
          if (!mine) {
            this.unclaimed.push(q);
            return { verdict: 'deny', allowed: false, rule: 'human-denied', toolError: 'denied' } as R;
          }
          const answered = mine.then((x) => ({ x }));
          const r = await Promise.race([answered, withdrawn.then(() => undefined)]);
          if (!r) {
            void mine.then((x) => this.answers.push(x));
            return { verdict: 'deny', allowed: false, rule: 'approval-cancelled', decidedBy: 'cancelled' } as R;
          }
          this.answers.push(r.x);
          return (r.x === 'allow-once' ? a.result : { verdict: 'deny', allowed: false, rule: 'human-denied' }) as R;
        }
        return a.result as R;
      },
      isUnavailable: (e) => (e as Error).message === 'unavailable',
      log: (l) => this.logs.push(l),
      annotate: (id) => this.annotated.push(id),
      folder: () => '/w',
      now: () => this.clock,
    };
  }
}

function setup(fake: FakeServer): { lm: LmTools; prepare: (name: string, input: unknown) => Promise<vscode.PreparedToolInvocation | undefined>; invoke: (name: string, input: unknown) => Promise<string> } {
  tools.clear();
  settings.clear();
  const lm = new LmTools(fake.host());
  fake.intercept = lm.interceptor;
  assert.equal(lm.register(), true);
  assert.deepEqual([...tools.keys()].sort(), [...toolNames].sort());
  const token = new CancellationTokenSource().token;
  return {
    lm,
    prepare: async (name, input) => tools.get(name)!.prepareInvocation!({ input }, token),
    invoke: async (name, input) => {
      const r = (await tools.get(name)!.invoke({ input, toolInvocationToken: undefined }, token)) as vscode.LanguageModelToolResult;
      return (r.content as vscode.LanguageModelTextPart[]).map((p) => p.value).join('');
    },
  };
}

const asks = (method: string, p: Record<string, unknown>) =>
  p.command === 'make deploy'
    ? { ask: { tool: 'admit.run', command: 'make deploy', targets: ['/w'], cwd: '/w' }, result: method === 'admit/run' ? { id: 'r1', verdict: 'allow', allowed: true, ran: true, exitCode: 0, stdout: 'deployed\n' } : { id: 'c1', verdict: 'allow', allowed: true } }
    : { result: { id: 'x', verdict: 'allow', allowed: true, ran: true, exitCode: 0, stdout: 'ok\n' } };

test('a server without a dry run: the check that asks is withdrawn, the ask is the tool\'s confirmation, and the acting call is answered from it, once', async () => {
  const fake = new FakeServer();
  fake.answer = asks;
  const t = setup(fake);
  const prepared = await t.prepare('admit_run', { command: 'make deploy' });
  assert.equal(fake.calls[0].params.dryRun, true, 'a dry run first');
  assert.equal(fake.calls[1].method, 'admit/check');
  assert.ok(isProbeAgent((fake.calls[1].params.context as { agent: string }).agent), 'the probe names itself');
  assert.equal(fake.withdrawn, 1, "the check's question was withdrawn");
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(fake.answers, ['deny'], 'answered only after the server withdrew it (the server ignores it as late)');
  assert.equal(prepared?.confirmationMessages?.title, 'admit: allow this tool to run a command?');
  assert.match((prepared!.confirmationMessages!.message as vscode.MarkdownString).value, /`make deploy`[\s\S]*Why admit asks: needs a person/);
  assert.equal((prepared!.confirmationMessages!.message as vscode.MarkdownString).isTrusted, false);
  // The person confirmed (a human's time later): the acting call's question is answered from it.
  fake.clock += humanFloorMs + 1;
  const out = await t.invoke('admit_run', { command: 'make deploy' });
  assert.equal(fake.calls[2].method, 'admit/run');
  assert.deepEqual(fake.calls[2].params, { command: 'make deploy' });
  assert.deepEqual(fake.answers, ['deny', 'allow-once']);
  assert.deepEqual(fake.unclaimed, [], 'admit\'s own prompt asked nothing: the person was asked once');
  assert.match(out, /^exit code 0\ndeployed/);
  assert.deepEqual(fake.annotated, ['r1']);
  // The same call again, without a new confirmation: its question goes to admit's own prompt.
  await t.invoke('admit_run', { command: 'make deploy' });
  assert.equal(fake.unclaimed.length, 1, 'a confirmation answers one call');
  // Later calls skip the dry run the server does not have.
  fake.calls = [];
  await t.prepare('admit_run', { command: 'ls' });
  assert.equal(fake.calls.length, 1);
  assert.equal(fake.calls[0].params.dryRun, undefined);
});

test('a server with a dry run: nothing is withdrawn; the acting call is the one decision', async () => {
  const fake = new FakeServer();
  fake.dryRun = true;
  fake.answer = (method, p) => {
    if (p.dryRun) return { result: { verdict: 'deny', allowed: false, wouldAsk: true, reason: 'needs a person', targets: ['/w'], tool: 'admit.run' } };
    return asks(method, p);
  };
  const t = setup(fake);
  const prepared = await t.prepare('admit_run', { command: 'make deploy' });
  assert.equal(fake.calls.length, 1);
  assert.ok(prepared?.confirmationMessages);
  fake.clock += 5000;
  const out = await t.invoke('admit_run', { command: 'make deploy' });
  assert.deepEqual(fake.answers, ['allow-once']);
  assert.match(out, /deployed/);
  // A dry run that would not ask: no confirmation.
  fake.answer = () => ({ result: { verdict: 'allow', allowed: true } });
  assert.equal((await t.prepare('admit_run', { command: 'ls' }))?.confirmationMessages, undefined);
});

test('a confirmation faster than a person reads, or one VS Code gives by itself, is not the answer: admit\'s own prompt asks', async () => {
  const fake = new FakeServer();
  fake.answer = asks;
  let t = setup(fake);
  assert.ok((await t.prepare('admit_run', { command: 'make deploy' }))?.confirmationMessages);
  fake.clock += humanFloorMs - 100;
  await t.invoke('admit_run', { command: 'make deploy' });
  assert.equal(fake.unclaimed.length, 1);
  assert.ok(fake.logs.some((l) => /faster than a person reads it/.test(l)));
  // A repository that turns on VS Code's auto-approval: no confirmation is relied on at all.
  const fake2 = new FakeServer();
  fake2.answer = asks;
  t = setup(fake2);
  settings.set('chat.tools.autoApprove', { workspaceValue: true });
  const p = await t.prepare('admit_run', { command: 'make deploy' });
  assert.equal(p?.confirmationMessages, undefined);
  assert.equal(fake2.calls.length, 0, 'not even a check');
  fake2.clock += 10_000;
  await t.invoke('admit_run', { command: 'make deploy' });
  assert.equal(fake2.unclaimed.length, 1);
});

test('a question about another call is never answered from a confirmation', async () => {
  const fake = new FakeServer();
  fake.answer = (method, p) => (method === 'admit/run' ? { ask: { tool: 'admit.run', command: 'make deploy --force', targets: ['/w'], cwd: '/w' }, result: {} } : asks(method, p));
  const t = setup(fake);
  await t.prepare('admit_run', { command: 'make deploy' });
  fake.clock += 5000;
  const out = await t.invoke('admit_run', { command: 'make deploy' });
  assert.equal(fake.unclaimed.length, 1);
  assert.equal(out, 'denied', "the refusal's toolError");
  // Neither is another session's question, nor one an agent names.
  assert.equal(t.lm.interceptor({ id: 'z', session: 's2', tool: 'admit.run', command: 'make deploy', targets: ['/w'] } as ApproveParams, new CancellationTokenSource().token as never), undefined);
  assert.equal(t.lm.interceptor({ id: 'z', tool: 'admit.run', agent: 'claude-code', command: 'make deploy', targets: ['/w'] } as ApproveParams, new CancellationTokenSource().token as never), undefined);
  assert.equal(questionKey({ tool: 'a', command: 'x', targets: ['b', 'a'] }), questionKey({ tool: 'a', command: 'x', targets: ['a', 'b'] }));
});

test('refusals: a call its check refused returns that refusal without acting; bad arguments act on nothing; no server refuses', async () => {
  const fake = new FakeServer();
  fake.answer = (method) => ({ result: method === 'admit/check' ? { id: 'c9', verdict: 'deny', allowed: false, rule: 'outside-workspace', toolError: '{"error":"REFUSED by admit; NOTHING was executed"}' } : { verdict: 'allow', allowed: true } });
  const t = setup(fake);
  assert.equal((await t.prepare('admit_read', { path: '/etc/passwd' }))?.confirmationMessages, undefined);
  const n = fake.calls.length;
  assert.equal(await t.invoke('admit_read', { path: '/etc/passwd' }), '{"error":"REFUSED by admit; NOTHING was executed"}');
  assert.equal(fake.calls.length, n, 'not asked again: the refusal is counted once');
  assert.deepEqual(fake.annotated, ['c9']);
  assert.match(await t.invoke('admit_read', { path: 'a', extra: 1 }), /unknown argument "extra"[\s\S]*Nothing was done/);
  assert.equal(fake.calls.length, n);
  // The gate off: the tools say they did nothing.
  fake.answer = () => ({ result: { verdict: 'allow', allowed: true, mode: 'off', rule: 'caps-off', ran: false } });
  assert.match(await t.invoke('admit_run', { command: 'ls' }), /^admit is off \(mode off\)[\s\S]*nothing was done/);
  // No server: a refusal the model reads, not an error, and nothing acted.
  tools.clear();
  const gone = new LmTools({ ...fake.host(), request: async () => { throw new Error('unavailable'); } });
  gone.register();
  const r = (await tools.get('admit_run')!.invoke({ input: { command: 'ls' } }, new CancellationTokenSource().token)) as vscode.LanguageModelToolResult;
  const text = (r.content[0] as vscode.LanguageModelTextPart).value;
  assert.match(text, /"rule":"server-unavailable"/);
  assert.match(text, /Nothing was executed/);
});

test('reads remember the hash, so the next edit of the file is bound to it', async () => {
  const fake = new FakeServer();
  fake.answer = (method) => ({
    result: method === 'admit/read' ? { id: 'r', verdict: 'allow', allowed: true, content: 'hello\n', hash: 'sha256:11', targets: ['/w/a.txt'] } : { id: 'e', verdict: 'allow', allowed: true, verified: true, hash: 'sha256:22', size: 4, targets: ['/w/a.txt'], detail: 'read back' },
  });
  const t = setup(fake);
  assert.equal(await t.invoke('admit_read', { path: 'a.txt' }), 'hello\n');
  assert.equal(await t.invoke('admit_edit', { path: 'a.txt', oldText: 'hello', newText: 'bye' }), 'edited /w/a.txt (4 bytes): read back');
  assert.equal(fake.calls.find((c) => c.method === 'admit/edit')!.params.expectHash, 'sha256:11');
  await t.invoke('admit_edit', { path: '/w/a.txt', oldText: 'bye', newText: 'hi' });
  assert.equal(fake.calls.filter((c) => c.method === 'admit/edit')[1].params.expectHash, 'sha256:22', 'the hash of what it wrote, under the resolved path too');
});
