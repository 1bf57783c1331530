// A pretend agent for the e2e suite. The harness drops request-NAME.json files into
// $ADMIT_FIXTURE_DIR: {"calls": [{"method": "check", "params": {...}, "via": "api"|"command"}]}.
// The fixture sends every call of a request at once through the admit API (or the
// admit.* commands), or, with "via": "lm", invokes the language-model tool
// `method` with `params` as its input (vscode.lm.invokeTool, outside a chat: VS Code
// shows a tool's confirmation as a dialog), then writes result-NAME.json: {"results":
// [{"ok": true, "value": ...} | {"ok": false, "error": "..."}]}; a tool's value is the
// text of its result. A file trigger keeps the test independent of keyboard focus in the
// browser.
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

const dir = process.env.ADMIT_FIXTURE_DIR;
const seen = new Set();

function log(msg) {
  if (dir) fs.appendFileSync(path.join(dir, 'fixture.log'), `${new Date().toISOString()} ${msg}\n`);
}

async function handle(api, file) {
  const name = file.slice('request-'.length, -'.json'.length);
  const req = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  log(`request ${name}: ${req.calls.length} call(s)`);
  const results = await Promise.all(req.calls.map(async (c) => {
    try {
      let value;
      if (c.via === 'lm') {
        const r = await vscode.lm.invokeTool(c.method, { input: c.params, toolInvocationToken: undefined });
        value = r.content.map((p) => (p && typeof p.value === 'string' ? p.value : JSON.stringify(p))).join('');
      } else if (c.via === 'command') {
        value = await vscode.commands.executeCommand(`admit.${c.method}`, c.params);
      } else {
        value = await api[c.method](c.params);
      }
      return { ok: true, value };
    } catch (e) {
      return { ok: false, error: e && e.message ? e.message : String(e) };
    }
  }));
  const out = path.join(dir, `result-${name}.json`);
  fs.writeFileSync(out + '.tmp', JSON.stringify({ results }, null, 2));
  fs.renameSync(out + '.tmp', out);
  log(`result ${name} written`);
}

function scan(api) {
  for (const f of fs.readdirSync(dir)) {
    if (f.startsWith('request-') && f.endsWith('.json') && !seen.has(f)) {
      seen.add(f);
      handle(api, f).catch((e) => log(`request ${f} failed: ${e && e.stack}`));
    }
  }
}

exports.activate = async function activate(context) {
  if (!dir) return;
  const ext = vscode.extensions.getExtension('admit.admit');
  const api = await ext.activate();
  // Every decision the API announces, for the harness to compare with the tape.
  context.subscriptions.push(api.onDidDecide((d) => fs.appendFileSync(path.join(dir, 'decided.jsonl'), JSON.stringify(d) + '\n')));
  context.subscriptions.push(vscode.commands.registerCommand('admitFixture.run', () => scan(api)));
  const watcher = fs.watch(dir, () => scan(api));
  context.subscriptions.push({ dispose: () => watcher.close() });
  // The tools admit contributes, as VS Code lists them to agents.
  const lmTools = vscode.lm && vscode.lm.tools ? vscode.lm.tools.filter((t) => t.name.startsWith('admit_')).map((t) => t.name) : [];
  fs.writeFileSync(path.join(dir, 'ready'), JSON.stringify({ lmTools }));
  log('ready');
  scan(api);
};

exports.deactivate = function deactivate() {};
