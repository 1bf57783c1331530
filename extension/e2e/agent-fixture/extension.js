// A pretend agent for the e2e suite. The harness drops request-NAME.json files into
// $ADMIT_FIXTURE_DIR: {"calls": [{"method": "check", "params": {...}, "via": "api"|"command"}]}.
// The fixture sends every call of a request at once through the admit API (or the
// admit.* commands), then writes result-NAME.json: {"results": [{"ok": true, "value": ...}
// | {"ok": false, "error": "..."}]}. A file trigger keeps the test independent of
// keyboard focus in the browser.
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
      const value = c.via === 'command'
        ? await vscode.commands.executeCommand(`admit.${c.method}`, c.params)
        : await api[c.method](c.params);
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
  fs.writeFileSync(path.join(dir, 'ready'), 'ok');
  log('ready');
  scan(api);
};

exports.deactivate = function deactivate() {};
