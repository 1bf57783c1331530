import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectButtons } from '../src/agents';
import { AgentConnections } from '../src/connect';
import { DocumentStore } from '../src/documents';
import type { InstallResult } from '../src/install';
import type { AgentsResult, AgentStatus } from '../src/protocol';
import { answers, created, executed } from './vscode-mock';

const bin = '/home/me/.local/share/admit/bin/admit';

function claude(sum: string, before = '{"model": "opus"}\n'): AgentStatus {
  const file = '/home/me/.claude/settings.json';
  return {
    host: 'claude-code', agent: 'Claude Code', installed: true, state: 'not-connected', connected: false, config: file, files: [file],
    change: { diff: '', sum, files: [{ path: file, before, after: '{"model": "opus", "hooks": {}}\n' }] },
  };
}

function harness(surveys: AgentsResult[], connect: (params: Record<string, unknown>) => unknown, binary: InstallResult = { kind: 'current', path: bin }) {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  let n = 0;
  const docs = new DocumentStore();
  const c = new AgentConnections({
    request: async <R>(method: string, params: unknown) => {
      calls.push({ method, params: params as Record<string, unknown> });
      if (method === 'admit/agents') return surveys[Math.min(n++, surveys.length - 1)] as R;
      return connect(params as Record<string, unknown>) as R;
    },
    log: () => {},
    binary: async () => binary,
    changed: () => {},
  }, docs);
  return { c, calls, docs };
}

function reset(): void {
  created.messages.length = 0;
  executed.length = 0;
  answers.quickPick = (items) => items[0];
  answers.warning = undefined;
}

test('connect: the diff is shown, and nothing is written unless the second button is pressed', async () => {
  reset();
  const { c, calls, docs } = harness([{ binary: bin, agents: [claude('sha256:1')] }], () => ({}));
  answers.warning = (_m, items) => items[1]; // the buttons follow the options object; items[1] is the first button: "Don't connect"
  await c.run('connect');
  assert.deepEqual(calls.map((x) => x.method), ['admit/agents']);
  assert.deepEqual(calls[0].params, { binary: bin });
  const diff = executed.find((e) => e.command === 'vscode.diff')!;
  const [left, right, title] = diff.args as [{ path: string }, { path: string }, string];
  assert.equal(docs.provideTextDocumentContent(left as never), '{"model": "opus"}\n');
  assert.equal(docs.provideTextDocumentContent(right as never), '{"model": "opus", "hooks": {}}\n');
  assert.match(left.path, /now-settings\.json\.txt$/);
  assert.equal(title, 'admit: connect Claude Code (claude-code): .claude/settings.json (now ↔ after)');
  const modal = created.messages.find((m) => m.message === 'admit: connect Claude Code (claude-code)?')!;
  assert.deepEqual((modal.items[0] as { modal: boolean }).modal, true);
  assert.deepEqual(modal.items.slice(1), [connectButtons.connect.keep, connectButtons.connect.yes], "the first button, the default, is Don't connect");
});

test('connect on a yes, with the shown change\'s sum; a file changed since is shown again, and the new change is written', async () => {
  reset();
  let tries = 0;
  const { c, calls } = harness(
    [{ binary: bin, agents: [claude('sha256:1')] }, { binary: bin, agents: [claude('sha256:2', '{"model": "sonnet"}\n')] }],
    (p) => {
      if (tries++ === 0) throw Object.assign(new Error('sum: the configuration changed since the change was shown: show it again (admit/agents)'), { code: -32602 });
      return { status: { ...claude('x'), state: 'connected', connected: true, change: undefined }, written: [p.host], backups: ['/home/me/.claude/settings.json.admit-backup'] };
    },
  );
  answers.warning = (m, items) => (m.endsWith('?') ? items[2] : undefined); // "Connect"
  await c.run('connect');
  assert.deepEqual(calls.map((x) => x.method), ['admit/agents', 'admit/connectAgent', 'admit/agents', 'admit/connectAgent']);
  assert.deepEqual(calls[1].params, { host: 'claude-code', binary: bin, sum: 'sha256:1' });
  assert.deepEqual(calls[3].params, { host: 'claude-code', binary: bin, sum: 'sha256:2' });
  assert.ok(created.messages.some((m) => /changed since it was shown, so nothing was written/.test(m.message)));
  assert.ok(created.messages.some((m) => /is connected: its hook runs \/home\/me\/.local\/share\/admit\/bin\/admit\. Your file was copied to \/home\/me\/.claude\/settings.json.admit-backup first/.test(m.message)));
  assert.equal(c.book.surveyed[0].state, 'connected', 'the book follows the answer');
});

test('disconnect writes the undo with its sum; a binary that cannot be named, or no installed binary, stops before anything is shown', async () => {
  reset();
  const connected: AgentStatus = { ...claude('x'), state: 'connected', connected: true, change: undefined, undo: { diff: '', sum: 'sha256:undo', files: [{ path: '/home/me/.claude/settings.json', before: 'b', after: 'a' }] } };
  let h = harness([{ binary: bin, agents: [connected] }], () => ({ status: claude('y') }));
  answers.warning = (m, items) => (m.endsWith('?') ? items[2] : undefined);
  await h.c.run('disconnect');
  assert.deepEqual(h.calls[1], { method: 'admit/disconnectAgent', params: { host: 'claude-code', binary: bin, sum: 'sha256:undo' } });
  reset();
  h = harness([{ binary: bin, binaryProblem: 'it is inside the repository /home/me', agents: [claude('s')] }], () => ({}));
  await h.c.run('connect');
  assert.deepEqual(h.calls.map((x) => x.method), ['admit/agents']);
  assert.ok(created.messages.some((m) => m.kind === 'error' && /cannot run .*inside the repository \/home\/me/.test(m.message)));
  assert.equal(executed.length, 0);
  reset();
  h = harness([], () => ({}), { kind: 'failed', path: bin, error: 'disk full' });
  await h.c.run('connect');
  assert.equal(h.calls.length, 0);
  assert.ok(created.messages.some((m) => /could not install its admit binary .*disk full/.test(m.message)));
});
