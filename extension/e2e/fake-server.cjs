#!/usr/bin/env node
// A stand-in for `admit serve`, for developing the e2e harness while the Go server
// is not buildable: enough of the protocol for the scenarios (initialize, admit/state,
// admit/setMode, admit/check with allow/needsHuman from .admit/policy.json, admit/tape,
// the notifications, a tape). It decides nothing the way the real server does.
// Use: ADMIT_E2E_SERVER=$PWD/e2e/fake-server.cjs node e2e/run.mjs
const fs = require('fs');
const path = require('path');
const rpc = require('vscode-jsonrpc/node');

const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(process.stdin), new rpc.StreamMessageWriter(process.stdout));
let state = { mode: 'warn', effects: 'read-only', shell: 'analyze', roots: [], counts: { allowed: 0, denied: 0, wouldDeny: 0, pending: 0 }, tape: '' };
let policy = { allow: ['read_file'], needsHuman: [] };
let seq = 0;
const log = (m) => process.stderr.write(`fake-admit: ${m}\n`);
const push = () => conn.sendNotification('admit/didChangeState', state);
const tape = (r) => state.tape && fs.appendFileSync(state.tape, JSON.stringify({ time: new Date().toISOString(), ...r }) + '\n');

conn.onRequest('initialize', (p) => {
  const o = p.initializationOptions || {};
  state.mode = o.mode || state.mode;
  state.effects = o.effects || state.effects;
  state.tape = o.tape || '/tmp/fake-admit-tape.jsonl';
  state.roots = (p.workspaceFolders || []).map((f) => decodeURIComponent(f.uri.replace('file://', '')));
  const pf = state.roots[0] && path.join(state.roots[0], '.admit/policy.json');
  if (pf && fs.existsSync(pf)) policy = JSON.parse(fs.readFileSync(pf, 'utf8'));
  log(`initialize ${JSON.stringify(o)} approve=${JSON.stringify(p.capabilities.experimental)}`);
  return { serverInfo: { name: 'fake-admit' }, capabilities: { experimental: { admit: { version: 0 } } } };
});
conn.onNotification('initialized', () => push());
conn.onRequest('shutdown', () => null);
conn.onNotification('exit', () => process.exit(0));
conn.onNotification('workspace/didChangeConfiguration', (p) => log(`config ${JSON.stringify(p)}`));
conn.onRequest('admit/state', () => state);
conn.onRequest('admit/setMode', (p) => {
  if (p.mode) state.mode = p.mode;
  if (p.effects) state.effects = p.effects;
  push();
  return state;
});
conn.onRequest('admit/tape', () => ({ records: fs.existsSync(state.tape) ? fs.readFileSync(state.tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [] }));
conn.onRequest('admit/check', async (p) => {
  const id = `fake-${++seq}`;
  let verdict = 'allow', rule = 'allowed', decidedBy = 'rule';
  if (!(policy.allow || []).includes(p.tool)) { verdict = 'deny'; rule = 'not-in-allow-list'; }
  else if ((policy.needsHuman || []).includes(p.tool)) {
    state.counts.pending++; push();
    const r = await conn.sendRequest('admit/approve', { id, session: 'default', tool: p.tool, summary: `${p.tool} ${JSON.stringify(p.args)}`, reason: `${p.tool} needs a person.`, timeoutMs: 60000 });
    state.counts.pending--;
    decidedBy = 'person';
    if (r.answer === 'deny') { verdict = 'deny'; rule = 'human-denied'; } else rule = 'human-approved';
  }
  const allowed = verdict === 'allow' || state.mode !== 'enforce';
  if (verdict === 'allow') state.counts.allowed++; else if (allowed) state.counts.wouldDeny++; else state.counts.denied++;
  const v = { id, verdict, allowed, mode: state.mode, rule, reason: `fake: ${rule}`, decidedBy };
  if (verdict === 'deny') v.toolError = JSON.stringify({ executed: false, rule });
  tape({ ...v, tool: p.tool, args: p.args });
  conn.sendNotification('admit/didDecide', { ...v, tool: p.tool, summary: JSON.stringify(p.args) });
  push();
  return v;
});
conn.listen();
log('listening');
