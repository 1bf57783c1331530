#!/usr/bin/env node
// A protocol smoke test of the admit binary, without VS Code: start `admit serve` N
// times, initialize (declaring the approve capability), admit/state, one admit/check,
// shutdown. Reports the failures with the tail of the server's stderr (a panic shows).
//   node e2e/smoke-server.cjs [BINARY] [N] [ROOT]   (default bin/admit, 10, a new temporary folder)
// The server is rooted in a folder of its own, and its tape lives there: rooted at the
// system's temporary folder it would watch everything in it (and hit the watch limit).
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const rpc = require('vscode-jsonrpc/node');

const bin = process.argv[2] || path.join(__dirname, '..', 'bin', 'admit');
const n = Number(process.argv[3] || 10);
const ownRoot = !process.argv[4];
const root = process.argv[4] || fs.mkdtempSync(path.join(os.tmpdir(), 'admit-smoke-'));
const workspace = path.join(root, 'workspace');
fs.mkdirSync(workspace, { recursive: true });

function once() {
  return new Promise((resolve) => {
    const p = spawn(bin, ['serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    const c = rpc.createMessageConnection(new rpc.StreamMessageReader(p.stdout), new rpc.StreamMessageWriter(p.stdin));
    c.onRequest(() => ({ answer: 'deny' }));
    c.onNotification(() => {});
    c.onError(() => {});
    c.listen();
    const done = (r) => {
      clearTimeout(timer);
      c.dispose();
      p.kill('SIGKILL');
      resolve(r);
    };
    const timer = setTimeout(() => done({ ok: false, why: 'no answer within 10 s', err }), 10_000);
    p.on('exit', (code) => setTimeout(() => done({ ok: false, why: `the server exited (${code})`, err }), 50));
    (async () => {
      try {
        await c.sendRequest('initialize', {
          processId: process.pid, rootUri: pathToFileURL(workspace).href, capabilities: { experimental: { admit: { approve: true } } },
          initializationOptions: { mode: 'enforce', tape: path.join(root, 'tape.jsonl') },
        });
        await c.sendNotification('initialized', {});
        const st = await c.sendRequest('admit/state', {});
        const v = await c.sendRequest('admit/check', { tool: 'no_such_tool', args: {} });
        await c.sendRequest('shutdown');
        done({ ok: st.mode === 'enforce' && v.allowed === false, why: `state ${st.mode}, check ${v.rule}`, err });
      } catch (e) {
        done({ ok: false, why: e.message, err });
      }
    })();
  });
}

(async () => {
  let failed = 0;
  for (let i = 1; i <= n; i++) {
    const r = await once();
    if (!r.ok) {
      failed++;
      console.log(`run ${i}: FAIL ${r.why}\n${r.err.split('\n').slice(0, 12).join('\n')}`);
    }
  }
  console.log(`smoke: ${n - failed} of ${n} runs of ${bin} serve passed`);
  if (ownRoot) fs.rmSync(root, { recursive: true, force: true });
  process.exit(failed ? 1 : 0);
})();
