#!/usr/bin/env node
// A stand-in for `admit serve`, for developing the e2e harness while the Go server
// is not buildable: enough of the protocol for the scenarios (initialize, admit/state,
// admit/setMode, admit/check with allow/needsHuman from .admit/policy.json, admit/tape,
// the notifications, a tape), and the person's rules as docs/protocol.md has them
// (admit/rules, addRule, removeRule, suggestRules, an approve request offering the rule
// "always allow" writes, and the allow-always answer), so the editor's side of them can
// be driven before the real server has them. It decides nothing the way the real server
// does: a Bash line is split at && || ; | and each part is allowed by a rule or asked.
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
// The person's rules: allow rules over a simple command's leading words.
const rules = [];
const rulesFile = () => path.join(process.env.XDG_CONFIG_HOME || '/tmp', 'admit', 'workspaces', 'fake', 'rules.json');
const rulesResult = () => ({ rules, files: { user: path.join(process.env.XDG_CONFIG_HOME || '/tmp', 'admit', 'rules.json'), workspace: rulesFile() } });
const words = (match) => match.trim().replace(/^Bash\((.*)\)$/, '$1').split(/\s+/).filter((w) => w !== '*');
const matches = (r, simple) => { const w = words(r.match); const c = simple.trim().split(/\s+/); return w.every((x, i) => c[i] === x); };
function addRule(p) {
  if (typeof p.match !== 'string' || !words(p.match).length) throw new rpc.ResponseError(-32602, `match: rules: ${JSON.stringify(p.match)} names no program: a rule over every command is refused`);
  if (!['allow', 'ask', 'deny'].includes(p.decision)) throw new rpc.ResponseError(-32602, `decision: must be allow, ask or deny, got ${JSON.stringify(p.decision)}`);
  if (!['user', 'workspace'].includes(p.scope)) throw new rpc.ResponseError(-32602, `scope: must be user or workspace, got ${JSON.stringify(p.scope)}`);
  if (!rules.some((r) => r.match === p.match && r.decision === p.decision && r.source === p.scope)) rules.push({ match: p.match, decision: p.decision, source: p.scope, ...(p.note ? { note: p.note } : {}) });
  fs.mkdirSync(path.dirname(rulesFile()), { recursive: true });
  fs.writeFileSync(rulesFile(), JSON.stringify({ rules }, null, 2));
  return rulesResult();
}
conn.onRequest('admit/rules', () => rulesResult());
conn.onRequest('admit/addRule', (p) => addRule(p));
conn.onRequest('admit/removeRule', (p) => {
  const i = rules.findIndex((r) => r.match === p.match && r.decision === p.decision && r.source === p.scope);
  if (i < 0) throw new rpc.ResponseError(-32602, `match: no ${p.decision} rule ${JSON.stringify(p.match)} in the ${p.scope} rules`);
  rules.splice(i, 1);
  return rulesResult();
});
conn.onRequest('admit/suggestRules', () => ({ suggestions: [] }));
const readPrograms = new Set(['ls', 'cat', 'echo', 'pwd']);

conn.onRequest('admit/check', async (p) => {
  const id = `fake-${++seq}`;
  let verdict = 'allow', rule = 'allowed', decidedBy = 'rule';
  const line = p.tool === 'Bash' ? String(p.command ?? p.args?.command ?? '') : undefined;
  const parts = line === undefined ? [] : line.split(/&&|\|\||;|\|/).map((x) => x.trim()).filter(Boolean);
  const unjudged = parts.filter((c) => !readPrograms.has(c.split(/\s+/)[0]) && !rules.some((r) => r.decision === 'allow' && matches(r, c)));
  const ask = line !== undefined ? unjudged.length > 0 : (policy.needsHuman || []).includes(p.tool);
  if (line === undefined && !(policy.allow || []).includes(p.tool)) { verdict = 'deny'; rule = 'not-in-allow-list'; }
  else if (ask) {
    state.counts.pending++; push();
    const offer = line !== undefined && parts.length === 1 ? { match: `${parts[0].split(/\s+/).slice(0, 2).join(' ')} *`, decision: 'allow', scope: 'workspace' } : undefined;
    const q = { id, session: 'default', tool: p.tool, summary: line ?? `${p.tool} ${JSON.stringify(p.args)}`, reason: line !== undefined ? `admit cannot judge what ${unjudged.map((c) => c.split(/\s+/)[0]).join(', ')} will run.` : `${p.tool} needs a person.`, timeoutMs: 60000 };
    if (line !== undefined) Object.assign(q, { command: line, agent: p.context?.agent, confinement: 'fake: none' });
    if (offer) q.rule = offer;
    const r = await conn.sendRequest('admit/approve', q);
    state.counts.pending--;
    decidedBy = 'person';
    if (r.answer === 'deny') { verdict = 'deny'; rule = 'human-denied'; } else rule = 'human-approved';
    if (r.answer === 'allow-always' && offer) addRule(offer);
  }
  const allowed = verdict === 'allow' || state.mode !== 'enforce';
  if (verdict === 'allow') state.counts.allowed++; else if (allowed) state.counts.wouldDeny++; else state.counts.denied++;
  const v = { id, verdict, allowed, mode: state.mode, rule, reason: `fake: ${rule}`, decidedBy, outcome: decidedBy === 'person' ? 'ask' : verdict };
  if (verdict === 'deny') v.toolError = JSON.stringify({ executed: false, rule });
  tape({ ...v, tool: p.tool, args: p.args });
  conn.sendNotification('admit/didDecide', { ...v, tool: p.tool, summary: JSON.stringify(p.args) });
  push();
  return v;
});
conn.listen();
log('listening');
