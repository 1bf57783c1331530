// End-to-end scenarios in a real VS Code (code-server 4.100.3, headless Debian
// chromium driven by playwright-core), with the real admit server from this
// repository inside the packed .vsix. Each scenario gets a fresh profile, a fresh
// workspace and its own tape; results are checked through what the server wrote
// (the tape, the verdicts the API returned), screenshots go to test-artifacts/.
//
//   node e2e/run.mjs            (after e2e/setup.sh and npm run package; see e2e/run.sh)
//   ADMIT_E2E_ONLY=3,5 ...      run some scenarios
//   ADMIT_E2E_KEEP=1 ...        keep every scenario's temp folder (failed ones are always kept)
import { spawn, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const EXT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ARTIFACTS = path.join(EXT, 'test-artifacts');
const CODE_SERVER = process.env.ADMIT_CODE_SERVER
  ?? [path.join('/opt/admit-e2e', 'code-server'), path.join(os.homedir(), '.cache/admit-e2e/code-server')].find((p) => fs.existsSync(p));
const CHROMIUM = process.env.ADMIT_CHROMIUM ?? '/usr/bin/chromium';
const VERSION = JSON.parse(fs.readFileSync(path.join(EXT, 'package.json'), 'utf8')).version;
const VSIX = process.env.ADMIT_VSIX ?? path.join(EXT, `admit-${VERSION}.vsix`);
const FIXTURE_VSIX = path.join(EXT, 'out/e2e/agent-fixture.vsix');
const LONG = 60_000;

const log = (...a) => console.log(`[e2e ${new Date().toISOString().slice(11, 23)}]`, ...a);

/** waitFor polls fn (a cheap read of a file or the DOM) until it returns a truthy value. */
async function waitFor(what, fn, timeout = LONG, every = 200) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function readJsonl(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).flatMap((l) => {
    try {
      return [JSON.parse(l)];
    } catch {
      return []; // a torn last line
    }
  });
}

/**
 * serverKnows says whether the packed server answers a method (anything but -32601),
 * from a throwaway `admit serve` with its own HOME, state and tape in a temp folder.
 */
async function serverKnows(method, params = {}, accept = () => true) {
  const bin = process.env.ADMIT_E2E_SERVER ?? path.join(EXT, 'bin', 'admit');
  if (!fs.existsSync(bin)) return false;
  const rpc = createRequire(import.meta.url)('vscode-jsonrpc/node');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-e2e-probe-'));
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, XDG_RUNTIME_DIR: dir };
  const p = spawn(bin, ['serve', '--listen', 'none'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const c = rpc.createMessageConnection(new rpc.StreamMessageReader(p.stdout), new rpc.StreamMessageWriter(p.stdin));
  c.onError(() => {});
  // A question (the stand-in server asks whatever the client declares) is answered deny: the probe only wants the outcome.
  c.onRequest('admit/approve', () => ({ answer: 'deny' }));
  c.listen();
  try {
    await c.sendRequest('initialize', { processId: process.pid, rootUri: `file://${dir}`, capabilities: {}, initializationOptions: { tape: path.join(dir, 'tape.jsonl') } });
    await c.sendNotification('initialized', {});
    return accept(await c.sendRequest(method, params));
  } catch (e) {
    return e?.code !== -32601;
  } finally {
    c.dispose();
    p.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One code-server with a fresh profile, workspace and browser. */
class Run {
  constructor(name, { settings = {}, workspaceSettings = {}, policy, files = {}, homeFiles = {}, executables = [], trust = false } = {}) {
    this.trust = trust;
    this.name = name;
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), `admit-e2e-${name}-`));
    const d = (p) => {
      const full = path.join(this.root, p);
      fs.mkdirSync(full, { recursive: true });
      return full;
    };
    this.home = d('home');
    this.ws = d('ws');
    this.userData = d('user-data');
    this.extDir = d('extensions');
    this.fixtureDir = d('fixture');
    this.browserDir = d('browser');
    this.tape = path.join(this.root, 'tape.jsonl');
    this.env = {
      ...process.env,
      HOME: this.home,
      XDG_DATA_HOME: d('xdg-data'),
      XDG_CONFIG_HOME: d('xdg-config'),
      XDG_STATE_HOME: d('xdg-state'),
      XDG_CACHE_HOME: d('xdg-cache'),
      // The server's default socket (and the editor's) go here, inside the run's folder,
      // not in the runner's own runtime folder, where a killed server would leave it.
      XDG_RUNTIME_DIR: d('xdg-runtime'),
      ADMIT_FIXTURE_DIR: this.fixtureDir,
    };
    fs.chmodSync(this.env.XDG_RUNTIME_DIR, 0o700);
    fs.mkdirSync(path.join(this.userData, 'User'), { recursive: true });
    fs.writeFileSync(path.join(this.userData, 'User', 'settings.json'), JSON.stringify({
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'workbench.welcomePage.walkthroughs.openOnInstall': false,
      'telemetry.telemetryLevel': 'off',
      'security.workspace.trust.enabled': trust,
      ...(trust ? { 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.untrustedFiles': 'open' } : {}),
      'update.mode': 'none',
      'extensions.autoUpdate': false,
      'extensions.autoCheckUpdates': false,
      'extensions.ignoreRecommendations': true,
      'git.enabled': false,
      ...settings,
    }, null, 2));
    // admit.tape and admit.server.path are machine-scoped: in code-server (a remote window)
    // the person sets them in the machine settings.
    this.machineSettings = path.join(this.userData, 'Machine', 'settings.json');
    fs.mkdirSync(path.dirname(this.machineSettings), { recursive: true });
    fs.writeFileSync(this.machineSettings, JSON.stringify({
      'admit.tape': this.tape,
      ...(process.env.ADMIT_E2E_SERVER ? { 'admit.server.path': process.env.ADMIT_E2E_SERVER } : {}),
    }, null, 2));
    this.userSettings = path.join(this.userData, 'User', 'settings.json');
    if (Object.keys(workspaceSettings).length) {
      fs.mkdirSync(path.join(this.ws, '.vscode'));
      fs.writeFileSync(path.join(this.ws, '.vscode', 'settings.json'), JSON.stringify(workspaceSettings, null, 2));
    }
    if (policy) {
      fs.mkdirSync(path.join(this.ws, '.admit'));
      fs.writeFileSync(path.join(this.ws, '.admit', 'policy.json'), JSON.stringify(policy, null, 2));
    }
    for (const [p, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(this.ws, p)), { recursive: true });
      fs.writeFileSync(path.join(this.ws, p), typeof text === 'string' ? text : JSON.stringify(text, null, 2));
    }
    for (const p of executables) fs.chmodSync(path.join(this.ws, p), 0o755);
    // The person's own files in the scenario's home folder (the agents' configurations).
    for (const [p, text] of Object.entries(homeFiles)) {
      fs.mkdirSync(path.dirname(path.join(this.home, p)), { recursive: true });
      if (text !== null) fs.writeFileSync(path.join(this.home, p), typeof text === 'string' ? text : JSON.stringify(text, null, 2));
    }
    this.config = path.join(this.root, 'code-server.yaml');
    this.seq = 0;
  }

  async start() {
    this.port = await freePort();
    fs.writeFileSync(this.config, `bind-addr: 127.0.0.1:${this.port}\nauth: none\ncert: false\n`);
    const common = ['--config', this.config, '--user-data-dir', this.userData, '--extensions-dir', this.extDir];
    const t0 = Date.now();
    execFileSync(CODE_SERVER, [...common, '--install-extension', VSIX, '--install-extension', FIXTURE_VSIX], {
      env: this.env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000,
    });
    log(`${this.name}: extensions installed in ${Date.now() - t0} ms`);
    const out = fs.openSync(path.join(this.root, 'code-server.log'), 'a');
    // detached: a new session, so the extension host and the admit server are in its process group.
    this.proc = spawn(CODE_SERVER, [
      ...common, '--bind-addr', `127.0.0.1:${this.port}`, '--auth', 'none', '--disable-telemetry',
      '--disable-update-check', ...(this.trust ? [] : ['--disable-workspace-trust']), '--disable-getting-started-override',
      '--disable-proxy', '--ignore-last-opened', this.ws,
    ], { env: this.env, detached: true, stdio: ['ignore', out, out] });
    this.pgid = this.proc.pid;
    await waitFor('code-server /healthz', async () => (await fetch(`http://127.0.0.1:${this.port}/healthz`)).ok);
    this.browser = await chromium.launchPersistentContext(this.browserDir, {
      executablePath: CHROMIUM,
      headless: true,
      env: this.env,
      viewport: { width: 1400, height: 900 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    this.page = this.browser.pages()[0] ?? (await this.browser.newPage());
    await this.page.goto(`http://127.0.0.1:${this.port}/?folder=${encodeURIComponent(this.ws)}`);
    await this.page.locator('.monaco-workbench').waitFor({ timeout: LONG });
  }

  /** The admit status item (its element id is publisher.extensionName.itemId). */
  status() {
    return this.page.locator('[id="admit.admit.admit.status"]');
  }

  async statusText() {
    return (await this.status().innerText({ timeout: 5000 })).replace(/\s+/g, ' ').trim();
  }

  async waitStatus(re, timeout = LONG) {
    return waitFor(`status bar matching ${re}`, async () => re.test(await this.statusText()) && (await this.statusText()), timeout);
  }

  /** The fixture (a pretend agent) must be up before it is sent requests. */
  async fixtureReady() {
    await waitFor('the agent fixture', () => fs.existsSync(path.join(this.fixtureDir, 'ready')));
  }

  /** send hands the fixture a request: calls sent at once through the admit API. */
  send(calls) {
    const name = `${++this.seq}`;
    const f = path.join(this.fixtureDir, `request-${name}.json`);
    fs.writeFileSync(`${f}.tmp`, JSON.stringify({ calls }));
    fs.renameSync(`${f}.tmp`, f);
    return name;
  }

  async result(name, timeout = LONG) {
    const f = path.join(this.fixtureDir, `result-${name}.json`);
    return waitFor(`result ${name}`, () => fs.existsSync(f) && JSON.parse(fs.readFileSync(f, 'utf8')).results, timeout);
  }

  tapeRecords() {
    return readJsonl(this.tape);
  }

  async tapeRecord(what, pred) {
    return waitFor(`tape record: ${what}`, () => this.tapeRecords().find(pred));
  }

  /** serverPids lists the admit servers of this run: the binary inside this run's extensions folder. */
  serverPids() {
    const pids = [];
    for (const p of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(p)) continue;
      try {
        const argv = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        const fake = process.env.ADMIT_E2E_SERVER;
        const mine = fake
          ? argv.some((a) => a === fake) && fs.readFileSync(`/proc/${p}/environ`, 'utf8').includes(`ADMIT_FIXTURE_DIR=${this.fixtureDir}\0`)
          : argv[0].startsWith(this.extDir + '/') && argv[0].endsWith('/bin/admit') && argv.includes('serve');
        if (mine) pids.push(Number(p));
      } catch {
        // gone
      }
    }
    return pids;
  }

  async toast(text) {
    const t = this.page.locator('.notification-toast').filter({ hasText: text }).filter({ has: this.page.getByRole('button', { name: 'Allow once' }) });
    await t.first().waitFor({ timeout: LONG });
    // A trial click waits until the toast has stopped sliding in (for the screenshot).
    await t.first().getByRole('button', { name: 'Deny' }).click({ trial: true, timeout: LONG });
    return t.first();
  }

  /** outputLog is what the admit output channel wrote (code-server keeps every channel in a log file). */
  outputLog() {
    const found = [];
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/admit\.log$/.test(e.name)) found.push(fs.readFileSync(p, 'utf8'));
      }
    };
    const logs = path.join(this.userData, 'logs');
    if (fs.existsSync(logs)) walk(logs);
    return found.join('\n');
  }

  /** hover points at a locator and returns the hover widget that opens, holding text. */
  async hover(locator, text) {
    const widget = this.page.locator('.monaco-hover, .workbench-hover').filter({ hasText: text });
    await waitFor(`a hover holding ${JSON.stringify(text)}`, async () => {
      await this.page.mouse.move(1, 1);
      await locator.hover({ timeout: 5000 });
      await widget.first().waitFor({ timeout: 3000 });
      return true;
    });
    return widget.first();
  }

  /** webview finds the frame of a webview page holding selector (webviews are nested iframes). */
  async webview(selector, timeout = LONG) {
    return waitFor(`a webview holding ${selector}`, async () => {
      for (const f of this.page.frames()) {
        try {
          if ((await f.locator(selector).count()) > 0) return f;
        } catch {
          // a frame going away
        }
      }
      return undefined;
    }, timeout);
  }

  /** webviewText is the text of the webview page holding selector (found afresh: frames are replaced when a page is redrawn). */
  async webviewText(selector, timeout = LONG) {
    return waitFor(`the text of a webview holding ${selector}`, async () => {
      const f = await this.webview(selector, timeout);
      return f.locator('body').innerText({ timeout: 5000 });
    }, timeout);
  }

  /** noWebview waits until no page holds selector (the panel was closed). */
  async noWebview(selector, timeout = LONG) {
    await waitFor(`no webview holding ${selector}`, async () => {
      for (const f of this.page.frames()) {
        try {
          if ((await f.locator(selector).count()) > 0) return false;
        } catch {
          // gone
        }
      }
      return true;
    }, timeout);
  }

  /**
   * prompt is the approval page of the question shown now (holding text). A webview's
   * frame is replaced when its page is drawn again, so the page is found afresh each
   * time: use the returned object's methods, which look it up again.
   */
  async prompt(text = '', every = 200) {
    const find = async () => {
      for (const f of this.page.frames()) {
        try {
          if ((await f.locator('#answer-deny').count()) > 0 && (await f.locator('body').innerText()).includes(text)) return f;
        } catch {
          // a frame going away
        }
      }
      return undefined;
    };
    await waitFor(`the prompt showing ${JSON.stringify(text)}`, find, LONG, every);
    const again = () => waitFor(`the prompt showing ${JSON.stringify(text)}`, find, 10_000);
    return {
      text: async () => (await again()).locator('body').innerText(),
      inner: async (sel) => (await again()).locator(sel).innerText(),
      texts: async (sel) => (await again()).locator(sel).allInnerTexts(),
      hrefs: async () => (await again()).locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
      click: async (sel, opts) => (await again()).locator(sel).click(opts),
    };
  }

  /**
   * watchToast notes, in the page, when a notification holding text is first put on screen
   * (ms since the epoch, by a MutationObserver: no polling delay in the figure); toastAt reads it.
   */
  async watchToast(text) {
    await this.page.evaluate((t) => {
      const seen = (window.__admitToastAt ??= {});
      delete seen[t];
      const look = () => {
        if (seen[t]) return true;
        for (const el of document.querySelectorAll('.notification-toast')) {
          if (el.textContent?.includes(t)) {
            seen[t] = Date.now();
            return true;
          }
        }
        return false;
      };
      const o = new MutationObserver(() => look() && o.disconnect());
      o.observe(document.body, { subtree: true, childList: true, characterData: true });
    }, text);
  }

  async toastAt(text) {
    return this.page.evaluate((t) => window.__admitToastAt?.[t], text);
  }

  /** callAt is when the fixture made the calls of request name (ms since the epoch, from its log), or undefined. */
  callAt(name) {
    const log = fs.existsSync(path.join(this.fixtureDir, 'fixture.log')) ? fs.readFileSync(path.join(this.fixtureDir, 'fixture.log'), 'utf8') : '';
    const m = log.match(new RegExp(`^(\\S+) request ${name}: `, 'm'));
    return m ? Date.parse(m[1]) : undefined;
  }

  /** onScreen lists the extension's own figures: how long each question took to be on screen after it came. */
  onScreen() {
    return [...this.outputLog().matchAll(/question on screen (\d+) ms after it came \(([^)]+)\)/g)].map((m) => `${m[1]} ms (${m[2]})`);
  }

  /** asked lists the admit/approve params the extension received (it logs each as JSON). */
  asked() {
    return this.outputLog().split('\n').flatMap((l) => {
      const m = l.match(/\] asked (\{.*\})$/);
      if (!m) return [];
      try {
        return [JSON.parse(m[1])];
      } catch {
        return [];
      }
    });
  }

  /** command runs a command from the palette by its title. */
  async command(title) {
    await this.page.mouse.move(1, 1);
    await this.page.keyboard.press('F1');
    const qi = this.page.locator('.quick-input-widget');
    await qi.waitFor({ timeout: LONG });
    await this.page.keyboard.type(title);
    await qi.locator('.monaco-list-row', { hasText: title }).first().waitFor({ timeout: LONG });
    await this.page.keyboard.press('Enter');
  }

  async shot(name, locator) {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `${name}.png`);
    try {
      await (locator ?? this.page).screenshot({ path: file, timeout: 10_000 });
    } catch (e) {
      log(`screenshot ${name} failed: ${e.message}`);
    }
  }

  async stop(failed) {
    if (failed && this.page) await this.shot(`FAILED-${this.name}`);
    try {
      await this.browser?.close();
    } catch {
      // already gone
    }
    if (this.pgid) {
      try {
        process.kill(-this.pgid, 'SIGTERM');
      } catch {
        // already gone
      }
      const gone = () => {
        try {
          process.kill(-this.pgid, 0);
          return false;
        } catch {
          return true;
        }
      };
      try {
        await waitFor('code-server to exit', gone, 10_000, 100);
      } catch {
        try {
          process.kill(-this.pgid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    if (failed || process.env.ADMIT_E2E_KEEP) {
      log(`${this.name}: kept ${this.root}`);
      for (const f of ['code-server.log', 'fixture/fixture.log']) {
        const p = path.join(this.root, f);
        if (failed && fs.existsSync(p)) console.log(`--- ${f} (tail)\n${fs.readFileSync(p, 'utf8').split('\n').slice(-30).join('\n')}`);
      }
    } else {
      fs.rmSync(this.root, { recursive: true, force: true });
    }
  }
}

// Calls that ask a person under the built-in policy (WebFetch needs one), as an agent makes them.
const fetchCall = (url, agent = 'e2e-fixture') => ({ method: 'check', params: { tool: 'WebFetch', args: { url }, context: { agent } } });
const bash = (command) => ({ method: 'check', params: { tool: 'Bash', command, args: { command }, context: { agent: 'e2e-fixture' } } });
const enforce = { 'admit.mode': 'enforce' };
/** The person's Claude Code settings, with their own hook: connecting must leave all of it as it is. */
const claudeSettings = '{\n  "model": "opus",\n  "permissions": { "allow": ["Bash(npm test:*)"] },\n  "hooks": {\n    "PostToolUse": [{ "matcher": "Edit", "hooks": [{ "type": "command", "command": "prettier --write ." }] }]\n  }\n}\n';

/** The server's methods the scenarios depend on, probed once before the first scenario. */
const server = {};

const scenarios = [
  {
    id: 1,
    name: "activation shows the person's mode; the Quick Pick marks it, writes the person's settings (not the repository's), and the server reports it",
    opts: { settings: { 'admit.mode': 'enforce', 'admit.effects': 'read-only' } },
    async run(r) {
      const first = await r.waitStatus(/admit: enforce · read-only/);
      log(`status: ${first}`);
      await r.shot('1-status-bar', r.page.locator('.part.statusbar'));
      // The server got the settings: a call is decided in enforce mode and taped at admit.tape.
      await r.fixtureReady();
      const [refused] = await r.result(r.send([{ method: 'check', params: { tool: 'no_such_tool', args: {} } }]));
      assert(refused.ok && refused.value.mode === 'enforce' && refused.value.allowed === false && refused.value.rule === 'not-in-allow-list', `verdict ${JSON.stringify(refused.value)}`);
      await r.tapeRecord('the refusal in enforce mode', (x) => x.tool === 'no_such_tool' && x.mode === 'enforce' && x.rule === 'not-in-allow-list');
      await r.status().click();
      const qi = r.page.locator('.quick-input-widget');
      await qi.filter({ hasText: 'admit: mode' }).waitFor({ timeout: LONG });
      await qi.locator('.monaco-list-row', { hasText: 'current' }).filter({ hasText: 'enforce' }).waitFor({ timeout: LONG });
      await r.shot('1-quick-pick-mode', qi);
      await r.page.keyboard.type('warn');
      await qi.locator('.monaco-list-row', { hasText: 'Decide and record every call' }).waitFor({ timeout: LONG });
      await r.page.keyboard.press('Enter');
      await qi.filter({ hasText: 'admit: effects' }).waitFor({ timeout: LONG });
      await qi.locator('.monaco-list-row', { hasText: 'current' }).filter({ hasText: 'read-only' }).waitFor({ timeout: LONG });
      await r.shot('1-quick-pick-effects', qi);
      await r.page.keyboard.type('workspace-write');
      await qi.locator('.monaco-list-row', { hasText: 'inside the workspace folders' }).waitFor({ timeout: LONG });
      await r.page.keyboard.press('Enter');
      // The status bar is redrawn from the server's admit/didChangeState.
      const text = await r.waitStatus(/admit: warn · workspace-write/);
      log(`status: ${text}`);
      await r.shot('1-status-after', r.page.locator('.part.statusbar'));
      await waitFor('the user setting', () => /"admit\.mode":\s*"warn"/.test(fs.readFileSync(r.userSettings, 'utf8')) && /"admit\.effects":\s*"workspace-write"/.test(fs.readFileSync(r.userSettings, 'utf8')));
      assert(!fs.existsSync(path.join(r.ws, '.vscode', 'settings.json')), 'the picker wrote into the repository');
      // The server decides in warn mode now: a refused call is let through and taped as would-deny.
      const [res] = await r.result(r.send([{ method: 'check', params: { tool: 'no_such_tool', args: {} } }]));
      assert(res.ok && res.value.mode === 'warn' && res.value.verdict === 'deny' && res.value.allowed === true, `verdict ${JSON.stringify(res.value)}`);
      await r.tapeRecord('a warn-mode record', (x) => x.tool === 'no_such_tool' && x.mode === 'warn' && x.allowed === true);
    },
  },
  {
    id: 2,
    name: 'the prompt panel: the whole call, the agent and why, Deny first; silenced notifications: the status bar opens it; "Allow once" admits, "Deny" refuses, closing it or Escape denies at once',
    opts: { settings: enforce },
    async run(r) {
      await r.waitStatus(/admit: enforce/);
      await r.fixtureReady();
      const url = 'https://example.com/a/long/path/that/a/toast/would/cut/off/' + 'x'.repeat(40);
      await r.watchToast('https://example.com/a/long/path/');
      let t0 = Date.now();
      let name = r.send([fetchCall(url)]);
      // A new panel takes a second to draw: the question shows at once as a notification, answerable there too.
      const firstToast = r.page.locator('.notification-toast').filter({ hasText: 'https://example.com/a/long/path/' });
      await firstToast.first().waitFor({ timeout: LONG });
      const toastAt = await r.toastAt('https://example.com/a/long/path/');
      const toastMs = toastAt - t0;
      const toastFromCall = toastAt - (r.callAt(name) ?? t0);
      let f = await r.prompt('https://example.com/a/long/path/', 20);
      const firstMs = Date.now() - t0;
      const firstFromCall = Date.now() - (r.callAt(name) ?? t0);
      const toastLinks = await firstToast.first().locator('.notification-list-item-message a').allInnerTexts();
      assert(JSON.stringify(toastLinks) === JSON.stringify(['Deny', 'Allow once', 'Allow for this session', 'Show the whole question']), `the notification's links: ${toastLinks}`);
      assert((await firstToast.first().getByRole('button', { name: 'Cancel' }).count()) === 1, 'the notification has its Cancel button (drawn whole)');
      await r.shot('2-notification', firstToast.first());
      const [params] = await waitFor('the question in the output', () => r.asked().length && r.asked());
      const text = await f.text();
      log(`prompt: ${text.replace(/\s+/g, ' ').slice(0, 300)}`);
      // What the server sent is on the page, whole: the call (or command), the reason, and the agent, session, folder, paths, confinement when given.
      for (const k of ['summary', 'command', 'reason', 'agent', 'cwd', 'confinement']) {
        if (k === 'summary' && (params.command || params.fields?.length)) continue;
        if (typeof params[k] === 'string' && params[k]) assert(text.includes(params[k]), `the prompt lacks ${k}: ${params[k]}`);
      }
      for (const t of params.targets ?? []) assert(text.includes(t), `the prompt lacks the path ${t}`);
      // WebFetch's arguments are readable fields, not raw JSON.
      if (Array.isArray(params.fields)) {
        assert(params.fields.some((x) => x.name === 'url' && x.value === url), `fields ${JSON.stringify(params.fields)}`);
        assert(!text.includes('{"url"'), 'the prompt shows the arguments as raw JSON');
      }
      // Deny comes first.
      const order = await f.texts('.actions a');
      assert(order[0] === 'Deny', `the first answer is ${order[0]}`);
      await r.waitStatus(/1 pending/);
      await r.shot('2-approval-prompt');
      // Do Not Disturb: no toast would show; the status bar still counts, and a click opens the question.
      await r.command('Toggle Do Not Disturb Mode');
      await r.page.locator('.part.editor').first().click({ position: { x: 5, y: 5 } }).catch(() => {});
      await r.status().click();
      await waitFor('the prompt focused', () => r.page.evaluate(() => document.activeElement?.tagName === 'IFRAME'));
      await f.click('#answer-allow-once');
      let [res] = await r.result(name);
      assert(res.ok && res.value.allowed === true && res.value.rule === 'human-approved', `verdict ${JSON.stringify(res.value)}`);
      const rec = await r.tapeRecord('human-approved WebFetch', (x) => x.tool === 'WebFetch' && x.rule === 'human-approved');
      assert(rec.decidedBy === 'person' && rec.verdict === 'allow' && rec.allowed === true, `tape ${JSON.stringify(rec)}`);
      await r.noWebview('#answer-deny');
      // Answered on the panel: its notification is gone too (in the notification centre as well: it was a progress notification).
      await waitFor('the first question\'s notification closed', async () => (await firstToast.count()) === 0);
      // Deny. The panel stayed after the click (with no answer on it): the next question is drawn into it.
      t0 = Date.now();
      name = r.send([fetchCall('https://example.com/deny')]);
      f = await r.prompt('https://example.com/deny', 20);
      const reusedMs = Date.now() - t0;
      const reusedFromCall = Date.now() - (r.callAt(name) ?? t0);
      // A figure, not an assertion: the time from the agent's call (the fixture's log) to the question found on the page
      // (polled every 20 ms), and from the request file; the extension's own figure is from the question's arrival to the page saying it is drawn.
      log(`time to appear: the notification ${toastFromCall} ms from the call (${toastMs} ms from the request file); new panel ${firstFromCall} ms from the call (${firstMs} ms from the request file); kept panel ${reusedFromCall} ms from the call (${reusedMs} ms from the request file); the extension: ${r.onScreen().join(', ')}`);
      await f.click('#answer-deny');
      [res] = await r.result(name);
      assert(res.ok && res.value.allowed === false && res.value.rule === 'human-denied', `verdict ${JSON.stringify(res.value)}`);
      assert(typeof res.value.toolError === 'string' && res.value.toolError.length > 0, 'a refusal carries toolError');
      // Closing the tab: a dismissal, answered deny at once (the deadline is 60 s).
      name = r.send([fetchCall('https://example.com/closed')]);
      await r.prompt('https://example.com/closed');
      const tab = r.page.locator('.tab', { hasText: 'admit: a question' }).first();
      await tab.waitFor({ timeout: LONG });
      t0 = Date.now();
      await tab.hover();
      await tab.locator('.codicon-close, .action-label[aria-label^="Close"]').first().click();
      [res] = await r.result(name);
      let took = Date.now() - t0;
      log(`closed: ${res.value?.rule} in ${took} ms`);
      assert(res.ok && res.value.rule === 'human-denied' && res.value.decidedBy === 'person' && took < 15_000, `closing: ${JSON.stringify(res.value)} after ${took} ms`);
      // Escape in the prompt.
      name = r.send([fetchCall('https://example.com/escape')]);
      f = await r.prompt('https://example.com/escape');
      await f.click('body', { position: { x: 5, y: 5 } });
      t0 = Date.now();
      await r.page.keyboard.press('Escape');
      [res] = await r.result(name);
      took = Date.now() - t0;
      log(`escape: ${res.value?.rule} in ${took} ms`);
      assert(res.ok && res.value.rule === 'human-denied' && took < 15_000, `escape: ${JSON.stringify(res.value)} after ${took} ms`);
      // Escape ends the question and takes its panel down: no live-looking buttons stay.
      await waitFor('the panel closed after Escape', async () => (await r.page.locator('.tab', { hasText: 'admit:' }).count()) === 0);
      // The next question gets a new panel again (not the session's first webview), and a notification: answered there.
      // The agent's text in it is inert: a link written into the URL is drawn as text, the answers are the extension's only.
      await r.command('Toggle Do Not Disturb Mode');
      await r.watchToast('https://example.com/again');
      t0 = Date.now();
      name = r.send([fetchCall('https://example.com/again?[Allow once](command:admit.answerApproval?%5B1%2C%22allow-once%22%5D)')]);
      const againToast = r.page.locator('.notification-toast').filter({ hasText: 'https://example.com/again' }).first();
      await againToast.waitFor({ timeout: LONG });
      const againToastMs = (await r.toastAt('https://example.com/again')) - (r.callAt(name) ?? t0);
      f = await r.prompt('https://example.com/again', 20);
      log(`time to appear: again, the notification ${againToastMs} ms and a new panel ${Date.now() - (r.callAt(name) ?? t0)} ms from the call; the extension: ${r.onScreen().at(-1)}`);
      const againLinks = await againToast.locator('.notification-list-item-message a').allInnerTexts();
      assert(JSON.stringify(againLinks) === JSON.stringify(['Deny', 'Allow once', 'Allow for this session', 'Show the whole question']), `the notification's links with a hostile URL: ${againLinks}`);
      await againToast.locator('.notification-list-item-message a', { hasText: /^Deny$/ }).click();
      [res] = await r.result(name);
      assert(res.ok && res.value.rule === 'human-denied', `again: ${JSON.stringify(res.value)}`);
      // Answered on the notification: the notification goes, and the panel shows no answer.
      await waitFor('the notification closed', async () => (await r.page.locator('.notification-toast').filter({ hasText: 'https://example.com/again' }).count()) === 0);
      await r.noWebview('#answer-deny');
      const recs = r.tapeRecords().filter((x) => x.tool === 'WebFetch');
      assert(recs.length === 5 && recs.shift().rule === 'human-approved' && recs.every((x) => x.rule === 'human-denied' && x.decidedBy === 'person' && x.allowed === false), `tape ${JSON.stringify(recs)}`);
    },
  },
  {
    id: 3,
    name: 'a question past its deadline closes its prompt; the server killed mid-question: the call is refused, the prompt closes, the server restarts',
    opts: { settings: { ...enforce, 'admit.approvalTimeoutMs': 6000 } },
    async run(r) {
      await r.waitStatus(/admit: enforce/);
      await r.fixtureReady();
      let name = r.send([fetchCall('https://example.com/deadline')]);
      await r.prompt('https://example.com/deadline');
      let [res] = await r.result(name);
      assert(res.ok && res.value.rule === 'approval-timeout', `deadline: ${JSON.stringify(res.value)}`);
      await r.noWebview('#answer-deny');
      const [first] = await waitFor('one admit server', () => { const p = r.serverPids(); return p.length === 1 && p; });
      name = r.send([fetchCall('https://example.com/killed')]);
      await r.prompt('https://example.com/killed');
      log(`killing admit serve pid ${first}`);
      process.kill(first, 'SIGKILL');
      [res] = await r.result(name);
      assert(res.ok && res.value.allowed === false, `the call was not refused: ${JSON.stringify(res)}`);
      log(`refused with rule ${res.value.rule}`);
      await r.noWebview('#answer-deny');
      const [second] = await waitFor('a new admit server', () => { const p = r.serverPids().filter((x) => x !== first); return p.length === 1 && p; });
      const text = await r.waitStatus(/admit: enforce/);
      log(`restarted as pid ${second}; status: ${text}`);
      await r.shot('3-status-recovered', r.page.locator('.part.statusbar'));
      const [after] = await r.result(r.send([{ method: 'check', params: { tool: 'read_file', args: { path: 'nothing.txt' } } }]));
      assert(after.ok && after.value.rule !== 'server-unavailable', `after restart: ${JSON.stringify(after)}`);
    },
  },
  {
    id: 4,
    name: 'the decisions view: time, outcome, tool and agent per row, icons that differ; a decision opens as a page; the report and the rules are views',
    opts: { settings: enforce, files: { 'a.txt': 'hello\n' } },
    async run(r) {
      await r.waitStatus(/admit: enforce/);
      await r.fixtureReady();
      const [a, b] = await r.result(r.send([
        { method: 'check', params: { tool: 'read_file', args: { path: 'a.txt' }, context: { agent: 'reader-agent' } } },
        { method: 'check', params: { tool: 'rm_everything', args: {} }, via: 'command' },
      ]));
      assert(a.ok && a.value.allowed === true, `read_file: ${JSON.stringify(a)}`);
      assert(b.ok && b.value.allowed === false, `rm_everything: ${JSON.stringify(b)}`);
      const name = r.send([fetchCall('https://example.com/view')]);
      await (await r.prompt('https://example.com/view')).click('#answer-deny');
      await r.result(name);
      await r.page.locator('.activitybar').getByRole('tab', { name: /^admit/ }).first().click();
      const pane = r.page.locator('.pane', { has: r.page.locator('.pane-header', { hasText: /Decisions/i }) });
      // The agents the calls named sit above the decisions, in their own group; the decisions follow, newest first.
      const rows = pane.locator('.monaco-list-row').filter({ hasText: /^\s*\d\d:\d\d:\d\d / });
      await waitFor('three decisions in the view', async () => (await rows.count()) >= 3);
      const agentRows = (await pane.locator('.monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
      assert(agentRows.some((l) => /^Agents/.test(l)) && agentRows.some((l) => /^e2e-fixture ?calls through the editor · last: asked: you denied WebFetch/.test(l)), `the agents above the decisions: ${JSON.stringify(agentRows)}`);
      const labels = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
      log(`view rows: ${JSON.stringify(labels)}`);
      assert(/^\d\d:\d\d:\d\d asked: you denied ?WebFetch · e2e-fixture/.test(labels[0]), `newest first, the denied question: ${labels[0]}`);
      assert(labels.some((l) => /^\d\d:\d\d:\d\d refused ?rm_everything/.test(l)), 'the refusal is listed');
      assert(labels.some((l) => /^\d\d:\d\d:\d\d allowed ?read_file · reader-agent/.test(l)), 'the allowed read is listed with its agent');
      assert(await pane.locator('.codicon-person').count() >= 1, 'asked icon');
      assert(await pane.locator('.codicon-error').count() >= 1, 'refused icon');
      assert(await pane.locator('.codicon-pass').count() >= 1, 'allowed icon');
      await r.shot('4-decisions-view');
      // The rules view: the person's rules, or (a server without admit/rules) a message that says so.
      const rulesPane = r.page.locator('.pane', { has: r.page.locator('.pane-header', { hasText: /Rules/i }) });
      const rulesText = server.rules ? /Your rules: allow, ask or deny/ : /does not know admit\/rules \(method not found\)/;
      await waitFor(`the rules view saying ${rulesText}`, async () => rulesText.test(await rulesPane.innerText()));
      // A click opens the decision as a readable page, not JSON.
      await rows.first().click();
      const text = await r.webviewText('#remedy');
      log(`decision page: ${text.replace(/\s+/g, ' ').slice(0, 300)}`);
      for (const want of ['What was asked', 'https://example.com/view', 'What was decided', 'you (a person at the editor)', 'By which rule', 'human-denied', 'What to do next', 'e2e-fixture']) {
        assert(text.includes(want), `the decision page lacks ${want}`);
      }
      await r.shot('4-decision-page');
      // The campaign report opens as a page in its own tab, not an untitled document.
      await r.command('admit: Campaign Report');
      const report = await r.webviewText('h1:has-text("admit campaign report")');
      assert(report.includes('Proposed rules'), 'the report has the proposed rules section');
      await r.page.locator('.tab', { hasText: 'admit: campaign report' }).first().waitFor({ timeout: LONG });
      assert(await r.page.locator('.tab', { hasText: /^Untitled/ }).count() === 0, 'an untitled document was opened');
      await r.shot('4-campaign-report');
    },
  },
  {
    id: 5,
    name: 'a hostile .vscode/settings.json (server.path, mode off, effects, tape) changes nothing; an invalid policy file is shown',
    opts: {
      settings: { 'admit.mode': 'warn', 'admit.effects': 'read-only' },
      workspaceSettings: {
        'admit.server.path': '${workspaceFolder}/tools/admit',
        'admit.mode': 'off',
        'admit.effects': 'workspace-write',
        'admit.tape': '${workspaceFolder}/stolen-tape.jsonl',
        'admit.approvalTimeoutMs': 1000,
      },
      // The repository's "gate": it would leave a mark if it ever ran.
      files: { 'tools/admit': '#!/bin/sh\ntouch "$(dirname "$0")/../PWNED"\nexec sleep 600\n', '.admit/policy.json': { allow: 5 } },
      executables: ['tools/admit'],
    },
    async run(r) {
      // The mode and effects are the person's: warn and read-only, not off or workspace-write.
      const text = await r.waitStatus(/admit: warn · read-only/);
      log(`status: ${text}`);
      const [pid] = await waitFor('the real admit server', () => { const p = r.serverPids(); return p.length === 1 && p; });
      log(`the server is the extension's own bin/admit (pid ${pid})`);
      await r.fixtureReady();
      const [res] = await r.result(r.send([{ method: 'check', params: { tool: 'read_file', args: { path: 'a.txt' } } }]));
      assert(res.ok && res.value.mode === 'warn' && res.value.rule === 'policy-invalid', `verdict ${JSON.stringify(res.value)}`);
      // Decided and taped by the real server, on the person's tape, in the person's mode.
      await r.tapeRecord("the warn-mode record on the person's tape", (x) => x.tool === 'read_file' && x.mode === 'warn' && x.rule === 'policy-invalid');
      assert(!fs.existsSync(path.join(r.ws, 'PWNED')), "the repository's program ran as the gate");
      assert(!fs.existsSync(path.join(r.ws, 'stolen-tape.jsonl')), "the repository's tape path was used");
      // The invalid policy file (the server reads it at the first call) shows in the status bar and as a notification.
      await r.waitStatus(/admit: warn · read-only · .*policy invalid/);
      await r.page.locator('.notification-toast').filter({ hasText: 'cannot be used' }).first().waitFor({ timeout: LONG });
      await r.shot('5-hostile-settings');
      // Each ignored value VS Code hands over is said in the output channel. (server.path and
      // tape are machine-scoped: VS Code never passes a workspace value of them on at all.)
      const out = await waitFor('the notes in the admit output', () => { const o = r.outputLog(); return /admit\.mode: .* ignored/.test(o) && o; });
      for (const k of ['mode', 'effects', 'approvalTimeoutMs']) assert(new RegExp(`admit\\.${k}: the workspace's \\.vscode/settings\\.json sets .*ignored`).test(out), `no note for admit.${k}`);
    },
  },
  {
    id: 6,
    name: 'an agent command holding a command link is inert in the prompt, the tooltip and the decisions view',
    opts: { settings: enforce },
    async run(r) {
      await r.waitStatus(/admit: enforce/);
      await r.fixtureReady();
      const link = '[Answer the waiting question](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22touch%20PWNED%5Cn%22%7D)';
      const shown = '[Answer the waiting question]';
      const noCommandAnchors = async (loc, where) => {
        const n = await loc.locator('a[href^="command:"], a[data-href^="command:"], a[href*="sendSequence"], a[data-href*="sendSequence"]').count();
        assert(n === 0, `${where}: ${n} command link(s)`);
      };
      // A tool named by the link: refused, and listed in the view under that name.
      const [refused] = await r.result(r.send([{ method: 'check', params: { tool: link, args: {} } }]));
      assert(refused.ok && refused.value.allowed === false, `the link tool: ${JSON.stringify(refused)}`);
      // A call that asks a person, with the link in its arguments: the prompt shows it as text; its only links are its own answers.
      const name = r.send([fetchCall(`https://example.com/${link}`, link)]);
      const f = await r.prompt('Answer the waiting question');
      const what = await f.inner('body'); // the call's arguments are fields below its name
      log(`prompt: ${what}`);
      assert(what.includes(shown) && what.includes('command:workbench.action.terminal.sendSequence'), `the prompt does not show the text: ${what}`);
      const hrefs = await f.hrefs();
      assert(hrefs.length >= 3 && hrefs.every((h) => h.startsWith('command:admit.answerApproval?')), `links in the prompt: ${JSON.stringify(hrefs)}`);
      await r.shot('6-prompt-inert');
      await f.click('#answer-deny');
      const [denied] = await r.result(name);
      assert(denied.ok && denied.value.rule === 'human-denied', `fetch: ${JSON.stringify(denied)}`);
      // The status bar tooltip's last decision holds the link as text.
      const tip = await r.hover(r.status(), 'Answer the waiting question');
      log(`tooltip: ${(await tip.innerText()).replace(/\s+/g, ' ')}`);
      await noCommandAnchors(tip, 'the status bar tooltip');
      assert(await tip.locator('a').count() === 0, 'the status bar tooltip holds a link');
      await r.shot('6-tooltip-inert', tip);
      // The decisions view: rows and their tooltips.
      await r.page.mouse.move(1, 1);
      await r.page.locator('.activitybar').getByRole('tab', { name: /^admit/ }).first().click();
      const pane = r.page.locator('.pane', { has: r.page.locator('.pane-header', { hasText: /Decisions/i }) });
      const rows = pane.locator('.monaco-list-row').filter({ hasText: /^\s*\d\d:\d\d:\d\d / }); // the decisions, below the agents
      await waitFor('two decisions in the view', async () => (await rows.count()) >= 2);
      const labels = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
      log(`view rows: ${JSON.stringify(labels)}`);
      assert(labels.some((l) => /refused ?\[Answer the waiting/.test(l)), 'the link-named tool is listed by its text');
      assert(labels.some((l) => /WebFetch/.test(l) && l.includes('Answer the waiting question')), 'the fetch is listed as text');
      await noCommandAnchors(pane, 'the decisions view');
      const rowTip = await r.hover(rows.filter({ hasText: 'WebFetch' }).first(), 'human-denied');
      log(`row tooltip: ${(await rowTip.innerText()).replace(/\s+/g, ' ')}`);
      assert((await rowTip.innerText()).includes('Answer the waiting question'), 'the row tooltip shows the summary');
      await noCommandAnchors(rowTip, 'the row tooltip');
      assert(await rowTip.locator('a').count() === 0, 'the row tooltip holds a link');
      await r.shot('6-view-inert');
      assert(!fs.existsSync(path.join(r.ws, 'PWNED')), 'a command was typed into a terminal');
    },
  },
  {
    id: 7,
    name: "Restricted Mode runs the gate in enforce and read-only; trusting the folder gives the person's settings back",
    opts: { trust: true, settings: { 'admit.mode': 'warn', 'admit.effects': 'workspace-write' } },
    async run(r) {
      // The folder is not trusted: the person's warn and workspace-write do not apply yet.
      const before = await r.waitStatus(/admit: enforce · read-only/);
      log(`restricted: ${before}`);
      const tip = await r.hover(r.status(), 'Restricted Mode');
      await r.shot('7-restricted', tip);
      await r.page.mouse.move(1, 1);
      await r.page.keyboard.press('F1');
      const qi = r.page.locator('.quick-input-widget');
      await qi.waitFor({ timeout: LONG });
      await r.page.keyboard.type('Manage Workspace Trust');
      await qi.locator('.monaco-list-row', { hasText: 'Manage Workspace Trust' }).first().waitFor({ timeout: LONG });
      await r.page.keyboard.press('Enter');
      await r.page.getByRole('button', { name: /^Trust( Folder)?$/ }).first().click({ timeout: LONG });
      const after = await r.waitStatus(/admit: warn · workspace-write/);
      log(`trusted: ${after}`);
      await r.shot('7-trusted', r.page.locator('.part.statusbar'));
    },
  },
  {
    id: 8,
    name: 'an untrusted policy file that widens: shown with its diff, trusted, then changed by a commit and untrusted again',
    opts: { settings: enforce, policy: { allow: ['read_file', 'deploy'] } },
    async run(r) {
      const git = (...a) => execFileSync('git', ['-C', r.ws, '-c', 'user.name=e2e', '-c', 'user.email=e2e@example.invalid', '-c', 'commit.gpgsign=false', ...a], { env: r.env, stdio: 'pipe' });
      git('init', '-q');
      git('add', '-A');
      git('commit', '-qm', 'a policy that widens');
      const deploy = { method: 'check', params: { tool: 'deploy', args: { target: 'prod' } } };
      const untrusted = await r.waitStatus(/admit: enforce · read-only · policy untrusted/);
      log(`status: ${untrusted}`);
      await r.page.locator('.notification-toast').filter({ hasText: 'not trusted, so it only tightens the gate' }).first().waitFor({ timeout: LONG });
      await r.fixtureReady();
      let [v] = await r.result(r.send([deploy]));
      assert(v.ok && v.value.allowed === false && v.value.rule === 'not-in-allow-list' && v.value.policyTrust === 'untrusted', `untrusted: ${JSON.stringify(v.value)}`);
      await r.shot('8-untrusted');
      // The review: the diff against the built-in policy, the words, and a question whose default keeps it untrusted.
      await r.command('admit: Review Workspace Policy');
      const dialog = r.page.locator('.monaco-dialog-box');
      await dialog.filter({ hasText: 'grants the tool "deploy"' }).waitFor({ timeout: LONG });
      const diff = r.page.locator('.monaco-diff-editor');
      await diff.first().waitFor({ timeout: LONG });
      // The diff of this file (the replay page beside it may make VS Code draw it inline, the added lines further down).
      await r.page.locator('.tab', { hasText: /built-in policy.*\.admit\/policy\.json/ }).first().waitFor({ timeout: LONG });
      // Beside it, what trusting the file would have done to the calls on the tape (admit/replay), and in the question its summary.
      const replay = await r.webviewText('h1:has-text("what this change would have done")');
      assert(/Before trusting the workspace policy file/.test(replay) && /1 would change/.test(replay) && /deploy/.test(replay), `the replay page: ${replay}`);
      await dialog.filter({ hasText: 'What trusting it would have done' }).filter({ hasText: 'judged again' }).waitFor({ timeout: LONG });
      const focused = await r.page.evaluate(() => document.activeElement?.textContent?.trim());
      assert(focused === 'Keep untrusted', `the default button is ${focused}`);
      await r.shot('8-review');
      await dialog.getByRole('button', { name: 'Trust this exact file' }).click();
      const trusted = await r.waitStatus(/policy trusted/);
      log(`status: ${trusted}`);
      [v] = await r.result(r.send([deploy]));
      assert(v.ok && v.value.allowed === true && v.value.policyTrust === 'trusted', `trusted: ${JSON.stringify(v.value)}`);
      const records = fs.readdirSync(path.join(r.env.XDG_DATA_HOME, 'admit', 'trust'));
      assert(records.length === 1, `trust records: ${records}`);
      // A commit changes the file: untrusted again, told again, and the widened tool is refused again.
      fs.writeFileSync(path.join(r.ws, '.admit', 'policy.json'), JSON.stringify({ allow: ['read_file', 'deploy', 'publish'] }, null, 2));
      git('commit', '-qam', 'widen more');
      const again = await r.waitStatus(/policy untrusted/);
      log(`after the commit: ${again}`);
      await r.page.locator('.notification-toast').filter({ hasText: 'grants the tool "publish"' }).first().waitFor({ timeout: LONG });
      [v] = await r.result(r.send([deploy]));
      assert(v.ok && v.value.allowed === false && v.value.policyTrust === 'untrusted', `after the commit: ${JSON.stringify(v.value)}`);
      await r.shot('8-untrusted-again');
    },
  },
  {
    id: 9,
    name: 'a modal prompt denies on Enter (Deny is its default button), and a click on it after its deadline says so',
    opts: { settings: { ...enforce, 'admit.approvalTimeoutMs': 3000, 'admit.approvals.modal': true } },
    async run(r) {
      await r.waitStatus(/admit: enforce/);
      await r.fixtureReady();
      let name = r.send([fetchCall('https://example.com/enter')]);
      const dialog = r.page.locator('.monaco-dialog-box').filter({ hasText: 'https://example.com/enter' });
      await dialog.waitFor({ timeout: LONG });
      const focused = await r.page.evaluate(() => document.activeElement?.textContent?.trim());
      assert(focused === 'Deny', `the default button is ${focused}`);
      await r.shot('9-modal');
      await r.page.keyboard.press('Enter');
      let [res] = await r.result(name);
      assert(res.ok && res.value.rule === 'human-denied' && res.value.decidedBy === 'person', `enter: ${JSON.stringify(res.value)}`);
      // A modal cannot be closed from code: a click after the deadline is told.
      name = r.send([fetchCall('https://example.com/late')]);
      const late = r.page.locator('.monaco-dialog-box').filter({ hasText: 'https://example.com/late' });
      await late.waitFor({ timeout: LONG });
      [res] = await r.result(name);
      assert(res.ok && res.value.rule === 'approval-timeout', `late: ${JSON.stringify(res.value)}`);
      await late.getByRole('button', { name: 'Allow once' }).click();
      await r.page.locator('.notification-toast').filter({ hasText: 'came too late: its deadline passed' }).first().waitFor({ timeout: LONG });
      await r.shot('9-late-click');
      const recs = r.tapeRecords().filter((x) => x.tool === 'WebFetch').map((x) => x.rule);
      assert(JSON.stringify(recs) === JSON.stringify(['human-denied', 'approval-timeout']), `tape ${recs}`);
    },
  },
  {
    id: 10,
    name: 'answers become rules: "always allow" writes the rule, the view shows it, the next matching call is not asked, a chained call still is, a dismissal denies at once',
    needs: 'rules',
    opts: { settings: { ...enforce, 'admit.effects': 'workspace-write' }, files: { 'package.json': '{"name":"e2e","scripts":{"test":"true"}}\n' } },
    async run(r) {
      await r.waitStatus(/admit: enforce · workspace-write/);
      await r.fixtureReady();
      let name = r.send([bash('npm test')]);
      const f = await r.prompt('npm test');
      const params = await waitFor('the question with a rule offered', () => r.asked().find((p) => p.rule));
      log(`offered rule: ${JSON.stringify(params.rule)}`);
      assert((await f.inner('#rule')).trim() === params.rule.match, 'the prompt shows exactly the rule it writes');
      await f.click('#answer-allow-always');
      let [res] = await r.result(name);
      assert(res.ok && res.value.allowed === true, `always allow: ${JSON.stringify(res.value)}`);
      // The rule is in the editor.
      await r.page.locator('.activitybar').getByRole('tab', { name: /^admit/ }).first().click();
      const rulesPane = r.page.locator('.pane', { has: r.page.locator('.pane-header', { hasText: /Rules/i }) });
      await waitFor('the rule in the Rules view', async () => (await rulesPane.innerText()).includes(params.rule.match));
      await r.shot('10-rule-shown');
      // Add a rule by hand: the server's objection is shown under the words; a good rule is listed.
      await r.command('admit: Add Rule');
      const qi = r.page.locator('.quick-input-widget');
      const refuseRow = qi.locator('.monaco-list-row', { hasText: 'always refuse' }).first();
      try {
        await refuseRow.click({ timeout: 15_000 });
      } catch {
        // The picker can open while the command palette is still closing,
        // and stay hidden behind it (seen once in CI): open it again.
        log('the rule picker was not visible; opened again');
        await r.page.keyboard.press('Escape');
        await r.command('admit: Add Rule');
        await refuseRow.click({ timeout: LONG });
      }
      await qi.locator('.monaco-list-row', { hasText: 'This workspace' }).first().click({ timeout: LONG });
      await qi.filter({ hasText: 'add a rule (3/3)' }).waitFor({ timeout: LONG });
      await r.page.keyboard.type('*');
      await r.page.keyboard.press('Enter');
      await waitFor("the server's objection under the words", async () => /names no program/.test(await qi.innerText()));
      await r.shot('10-rule-refused', qi);
      await r.page.keyboard.press('Backspace');
      await r.page.keyboard.type('git push *');
      await r.page.keyboard.press('Enter');
      await waitFor('the new rule in the view', async () => (await rulesPane.innerText()).includes('git push *'));
      // Remove it (a deny rule: removing it loosens the gate, so it is asked first).
      const row = rulesPane.locator('.monaco-list-row', { hasText: 'git push *' }).first();
      await row.hover();
      await row.locator('.action-label[aria-label="Remove Rule"], .codicon-trash').first().click({ timeout: LONG });
      const confirm = r.page.locator('.monaco-dialog-box').filter({ hasText: 'remove the rule deny git push *' });
      await confirm.getByRole('button', { name: 'Remove' }).click({ timeout: LONG });
      await waitFor('the rule gone from the view', async () => !(await rulesPane.innerText()).includes('git push *'));
      // The next matching call is allowed without a question.
      const before = r.asked().length;
      [res] = await r.result(r.send([bash('npm test')]));
      assert(res.ok && res.value.allowed === true && r.asked().length === before, `the next call: ${JSON.stringify(res.value)}, asked ${r.asked().length - before} more`);
      // A chained call is still asked; closing the prompt denies at once.
      name = r.send([bash('npm test && make')]);
      await r.prompt('npm test && make');
      const tab = r.page.locator('.tab', { hasText: 'admit: a question' }).first();
      const t0 = Date.now();
      await tab.hover();
      await tab.locator('.codicon-close, .action-label[aria-label^="Close"]').first().click();
      [res] = await r.result(name);
      assert(res.ok && res.value.allowed === false && res.value.decidedBy === 'person' && Date.now() - t0 < 15_000, `chained: ${JSON.stringify(res.value)}`);
    },
  },
  {
    id: 11,
    name: "connect agents: a home with Claude Code, Copilot and Cursor; the change shown as a diff, written on yes with the installed binary, the other settings untouched, the hook's decision shown, undone to the bytes; hooks switched off by the workspace said",
    opts: {
      settings: enforce,
      workspaceSettings: { 'chat.useHooks': false },
      files: { 'a.txt': 'hello\n', '.github/copilot/settings.json': { disableAllHooks: true } },
      homeFiles: {
        // The person's own settings and hooks, which must stay as they are, byte for byte.
        '.claude/settings.json': claudeSettings,
        '.copilot/config.json': '{ "theme": "dark" }\n',
        '.cursor/hooks.json': '{\n  "version": 1,\n  "hooks": { "afterFileEdit": [{ "command": "./format.sh" }] }\n}\n',
      },
    },
    async run(r) {
      // The workspace switches the person's hooks off: the status bar says so (a warning), the tooltip says where.
      const text = await r.waitStatus(/admit: enforce .*hooks off/);
      log(`status: ${text}`);
      const tip = await r.hover(r.status(), "hooks are switched off here");
      const tipText = (await tip.innerText()).replace(/\s+/g, ' ');
      assert(tipText.includes('.github/copilot/settings.json') && tipText.includes('disableAllHooks: true') && tipText.includes('chat.useHooks'), `tooltip: ${tipText}`);
      await r.shot('11-hooks-off', tip);
      await r.page.mouse.move(1, 1);
      // The bundled binary, installed outside the extension and every workspace, executable, the same bytes.
      const installed = path.join(r.env.XDG_DATA_HOME, 'admit', 'bin', 'admit');
      await waitFor('the installed binary', () => fs.existsSync(installed) && (fs.statSync(installed).mode & 0o111) !== 0);
      const bundled = fs.readdirSync(r.extDir).map((d) => path.join(r.extDir, d, 'bin', 'admit')).find((p) => fs.existsSync(p));
      assert(bundled && fs.readFileSync(bundled).equals(fs.readFileSync(installed)), 'the installed binary is the bundled one');
      const settingsFile = path.join(r.home, '.claude', 'settings.json');
      const before = fs.readFileSync(settingsFile);
      // Connect Agents: every agent found, with its state.
      await r.command('admit: Connect Agents');
      const qi = r.page.locator('.quick-input-widget');
      await qi.locator('.monaco-list-row', { hasText: 'Claude Code (claude-code)' }).first().waitFor({ timeout: LONG });
      const picks = (await qi.locator('.monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
      log(`picks: ${JSON.stringify(picks.slice(0, 4))}`);
      for (const a of ['Claude Code (claude-code)', 'Copilot', 'Cursor (cursor)']) assert(picks.some((p) => p.includes(a) && p.includes('not connected')), `${a} listed as not connected: ${JSON.stringify(picks)}`);
      await r.shot('11-connect-picks', qi);
      await r.page.keyboard.type('claude-code');
      await r.page.keyboard.press('Enter');
      // The change as a diff, and a question whose default writes nothing.
      const dialog = r.page.locator('.monaco-dialog-box').filter({ hasText: 'connect Claude Code (claude-code)?' });
      await dialog.waitFor({ timeout: LONG });
      const diff = r.page.locator('.monaco-diff-editor');
      await waitFor('the diff showing the hook', async () => /PreToolUse/.test(await diff.first().innerText()));
      await r.page.locator('.tab', { hasText: 'settings.json (now ↔ after)' }).first().waitFor({ timeout: LONG });
      const focused = await r.page.evaluate(() => document.activeElement?.textContent?.trim());
      assert(focused === "Don't connect", `the default button is ${focused}`);
      assert((await dialog.innerText()).includes(installed), 'the question names the installed binary');
      await r.shot('11-connect-diff');
      await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
      // Written: admit's entry runs the installed binary; every other setting of the person's as it was.
      const after = await waitFor('the written settings', () => { const t = fs.readFileSync(settingsFile, 'utf8'); return /PreToolUse/.test(t) && t; });
      const doc = JSON.parse(after);
      const entry = doc.hooks.PreToolUse[0].hooks[0].command;
      assert(entry.startsWith(`'${installed}' hook claude-code`) && entry.endsWith('|| exit 2'), `the entry: ${entry}`);
      const original = JSON.parse(claudeSettings);
      assert(JSON.stringify(doc.model) === JSON.stringify(original.model) && JSON.stringify(doc.permissions) === JSON.stringify(original.permissions) && JSON.stringify(doc.hooks.PostToolUse) === JSON.stringify(original.hooks.PostToolUse), 'the other settings are untouched');
      assert(fs.readFileSync(`${settingsFile}.admit-backup`).equals(before), 'a backup of the bytes before');
      // The hook, as Claude Code runs it, reaches this editor's gate: the agent is connected, with its last decision.
      const sock = fs.readdirSync(path.join(r.env.XDG_RUNTIME_DIR, 'admit')).find((f) => f.endsWith('.sock'));
      const event = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'e2e', cwd: r.ws, tool_name: 'Read', tool_input: { file_path: path.join(r.ws, 'a.txt') } });
      const out = execFileSync('/bin/sh', ['-c', entry], { input: event, cwd: r.ws, env: { ...r.env, ADMIT_SOCKET: path.join(r.env.XDG_RUNTIME_DIR, 'admit', sock) }, encoding: 'utf8' });
      log(`hook answered ${out.trim()}`);
      assert(/"permissionDecision":\s*"allow"/.test(out), `the hook's answer: ${out}`);
      await r.tapeRecord("the hook's decision", (x) => x.context?.agent === 'claude-code' && x.tool === 'Read');
      await r.page.locator('.activitybar').getByRole('tab', { name: /^admit/ }).first().click();
      const pane = r.page.locator('.pane', { has: r.page.locator('.pane-header', { hasText: /Decisions/i }) });
      await waitFor('the agent connected, with its last decision', async () => /Claude Code \(claude-code\) ?connected · last: allowed Read/.test((await pane.innerText()).replace(/\s+/g, ' ')));
      await r.shot('11-agents-view');
      // Undone: the file gets its bytes back.
      await r.command('admit: Disconnect Agent');
      await qi.locator('.monaco-list-row', { hasText: 'Claude Code (claude-code)' }).first().waitFor({ timeout: LONG });
      await r.page.keyboard.press('Enter');
      const undo = r.page.locator('.monaco-dialog-box').filter({ hasText: 'disconnect Claude Code (claude-code)?' });
      await undo.waitFor({ timeout: LONG });
      await undo.getByRole('button', { name: 'Disconnect', exact: true }).click();
      await waitFor('the settings back to their bytes', () => fs.readFileSync(settingsFile).equals(before));
      assert(fs.readFileSync(path.join(r.home, '.cursor', 'hooks.json'), 'utf8').includes('./format.sh') && !fs.readFileSync(path.join(r.home, '.cursor', 'hooks.json'), 'utf8').includes('admit'), 'Cursor was not touched');
    },
  },
  {
    id: 12,
    name: "admit's language-model tools: an ask is the tool's own confirmation (confirmed: run once, asked once; cancelled: nothing runs), a refusal returns its toolError, a read returns the file",
    opts: { settings: { ...enforce, 'admit.effects': 'workspace-write' }, policy: { needsHuman: ['admit.run'] }, files: { 'a.txt': 'hello from the workspace\n' } },
    async run(r) {
      await r.waitStatus(/admit: enforce · workspace-write/);
      await r.fixtureReady();
      const ready = JSON.parse(fs.readFileSync(path.join(r.fixtureDir, 'ready'), 'utf8'));
      assert(JSON.stringify(ready.lmTools.sort()) === JSON.stringify(['admit_edit', 'admit_read', 'admit_run', 'admit_search', 'admit_write']), `the tools VS Code lists: ${JSON.stringify(ready.lmTools)}`);
      const tool = (name, input) => ({ via: 'lm', method: name, params: input });
      // A read the policy allows, and one it refuses: no confirmation, the refusal is the verdict's toolError.
      const [read, outside] = await r.result(r.send([tool('admit_read', { path: 'a.txt' }), tool('admit_read', { path: '/etc/passwd' })]));
      assert(read.ok && read.value === 'hello from the workspace\n', `read: ${JSON.stringify(read)}`);
      assert(outside.ok && /REFUSED by admit; NOTHING was executed/.test(outside.value), `outside: ${JSON.stringify(outside)}`);
      await r.tapeRecord('the refused read', (x) => x.tool === 'admit.read' && x.verdict === 'deny' && x.args?.path === '/etc/passwd');
      // A run the policy asks about: VS Code's confirmation shows the whole command and why; admit's own prompt does not open.
      let name = r.send([tool('admit_run', { command: 'echo confirmed' })]);
      let dialog = r.page.locator('.monaco-dialog-box').filter({ hasText: 'admit: allow this tool to run a command?' });
      await dialog.waitFor({ timeout: LONG });
      const shown = (await dialog.innerText()).replace(/\s+/g, ' ');
      log(`confirmation: ${shown.slice(0, 300)}`);
      assert(shown.includes('echo confirmed') && shown.includes('Why admit asks') && shown.includes('admit.run'), `the confirmation: ${shown}`);
      await r.shot('12-confirmation');
      const prompts = await Promise.all(r.page.frames().map((f) => f.locator('#answer-deny').count().catch(() => 0)));
      assert(!prompts.some((n) => n > 0), "admit's own prompt opened too: asked twice");
      // A person reads the question before answering: the extension takes an answer given faster than
      // that (lmTools.ts humanFloorMs, 400 ms) for one VS Code gave by itself (see the last case).
      await r.page.waitForTimeout(800);
      await dialog.getByRole('button', { name: /^(Yes|Continue|OK)$/ }).first().click();
      let [res] = await r.result(name);
      log(`run: ${JSON.stringify(res)}`);
      assert(res.ok && /^exit code 0/.test(res.value) && res.value.includes('confirmed'), `confirmed run: ${JSON.stringify(res)}`);
      await r.tapeRecord('the run, approved by the person', (x) => x.tool === 'admit.run' && x.command === 'echo confirmed' && x.decidedBy === 'person' && x.rule === 'run-result' && x.exitCode === 0);
      const approvals = r.tapeRecords().filter((x) => x.command === 'echo confirmed' && x.rule === 'human-approved');
      assert(approvals.length === 1 && approvals[0].decidedBy === 'person', `the person answered once: ${JSON.stringify(r.tapeRecords().filter((x) => x.command === 'echo confirmed'))}`);
      // Cancelled: nothing runs; the tool's caller is told.
      name = r.send([tool('admit_run', { command: 'echo refused' })]);
      dialog = r.page.locator('.monaco-dialog-box').filter({ hasText: 'echo refused' });
      await dialog.waitFor({ timeout: LONG });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      [res] = await r.result(name);
      assert(!res.ok && /cancel/i.test(res.error), `cancelled: ${JSON.stringify(res)}`);
      assert(!r.tapeRecords().some((x) => x.command === 'echo refused' && (x.verdict === 'allow' || x.rule === 'run-result')), 'a cancelled call was admitted or ran');
      // A confirmation answered at once (as VS Code answers it by itself when its tools are auto-approved)
      // is not taken for the person's answer: admit's own prompt asks; its Deny refuses, and nothing runs.
      name = r.send([tool('admit_run', { command: 'echo fast' })]);
      dialog = r.page.locator('.monaco-dialog-box').filter({ hasText: 'echo fast' });
      await dialog.getByRole('button', { name: /^(Yes|Continue|OK)$/ }).first().click({ timeout: LONG });
      const f = await r.prompt('echo fast');
      await r.shot('12-own-prompt');
      await f.click('#answer-deny');
      [res] = await r.result(name);
      assert(res.ok && /REFUSED by admit/.test(res.value) && /human-denied/.test(res.value), `answered at once: ${JSON.stringify(res)}`);
      const fast = r.tapeRecords().filter((x) => x.command === 'echo fast' && x.decidedBy === 'person');
      assert(fast.length === 1 && fast[0].rule === 'human-denied' && !r.tapeRecords().some((x) => x.command === 'echo fast' && x.rule === 'run-result'), `answered at once: ${JSON.stringify(fast)}`);
      await r.shot('12-after');
    },
  },
  {
    id: 13,
    name: "an edit's change one click away in VS Code's diff editor: the file now beside the file as the edit leaves it; the question stays, Deny leaves the file as it was",
    opts: { settings: { ...enforce, 'admit.effects': 'workspace-write' }, policy: { needsHuman: ['admit.edit'] }, files: { 'notes.txt': 'one\ntwo\nthree\n' } },
    async run(r) {
      await r.waitStatus(/admit: enforce · workspace-write/);
      await r.fixtureReady();
      const file = path.join(r.ws, 'notes.txt');
      const call = (tool, args) => ({ method: 'check', params: { tool, args, context: { agent: 'e2e-fixture' } } });
      // The tools the editor's session grants: admit's own read and edit.
      const [read] = await r.result(r.send([call('admit.read', { path: file })]));
      assert(read.ok && read.value.allowed === true, `read: ${JSON.stringify(read)}`);
      const name = r.send([call('admit.edit', { path: file, oldText: 'two', newText: 'TWO' })]);
      const f = await r.prompt('+TWO');
      await f.click('#open-diff');
      const diff = r.page.locator('.monaco-diff-editor').first();
      await diff.waitFor({ timeout: LONG });
      await r.page.locator('.tab', { hasText: 'notes.txt: now' }).first().waitFor({ timeout: LONG });
      await waitFor('both sides of the diff', async () => {
        const before = await diff.locator('.editor.original').innerText();
        const after = await diff.locator('.editor.modified').innerText();
        return /\btwo\b/.test(before) && /\bTWO\b/.test(after) && !/\bTWO\b/.test(before);
      });
      await r.shot('13-diff-editor');
      // The question is still open beside its change; Deny refuses it and the file stays as it was.
      await f.click('#answer-deny');
      const [res] = await r.result(name);
      assert(res.ok && res.value.allowed === false && res.value.rule === 'human-denied', `edit: ${JSON.stringify(res.value)}`);
      assert(fs.readFileSync(file, 'utf8') === 'one\ntwo\nthree\n', 'the file changed');
    },
  },
];

async function main() {
  for (const [what, p] of [['code-server (run e2e/setup.sh)', CODE_SERVER], ['chromium', CHROMIUM], ['the .vsix (npm run package)', VSIX], ['the fixture .vsix', FIXTURE_VSIX]]) {
    if (!p || !fs.existsSync(p)) {
      console.error(`e2e: missing ${what}: ${p}`);
      console.log('0 passed, 1 failed');
      process.exit(1);
    }
  }
  const only = process.env.ADMIT_E2E_ONLY ? new Set(process.env.ADMIT_E2E_ONLY.split(',').map(Number)) : undefined;
  let passed = 0;
  let failed = 0;
  const skipped = [];
  const t0 = Date.now();
  // The person's rules are the lead's server work (docs/protocol.md): the scenario that needs them runs once the server has them.
  server.rules = await serverKnows('admit/rules');
  log(`the server ${server.rules ? 'has' : 'lacks'} admit/rules`);
  // Scenario 10 needs the person's rules in the judge too: a command no rule covers is asked, not refused as an
  // unsupported program (headless here, so an ask comes back refused with outcome "ask").
  server.asksNpmTest = server.rules && await serverKnows('admit/check', { tool: 'Bash', command: 'npm test', args: { command: 'npm test' } }, (v) => v?.outcome === 'ask');
  for (const s of scenarios) {
    if (only && !only.has(s.id)) continue;
    if (s.needs === 'rules' && !server.rules) {
      skipped.push(s.id);
      console.log(`SKIP ${s.id}. ${s.name}: the packed server answers admit/rules with -32601 (method not found); it runs once the server has the person's rules`);
      continue;
    }
    if (s.needs === 'rules' && !server.asksNpmTest) {
      skipped.push(s.id);
      console.log(`SKIP ${s.id}. ${s.name}: the packed server refuses \`npm test\` (unsupported-program) instead of asking, so no rule is offered; it runs once the person's rules are in the judge (issue 14), or with ADMIT_E2E_SERVER=$PWD/e2e/fake-server.cjs`);
      continue;
    }
    const r = new Run(`s${s.id}`, s.opts);
    const t = Date.now();
    let ok = false;
    try {
      await r.start();
      await s.run(r);
      ok = true;
    } catch (e) {
      console.error(`e2e: scenario ${s.id} failed: ${e.stack ?? e}`);
    } finally {
      await r.stop(!ok);
    }
    const secs = ((Date.now() - t) / 1000).toFixed(1);
    if (ok) passed++;
    else failed++;
    console.log(`${ok ? 'PASS' : 'FAIL'} ${s.id}. ${s.name} (${secs} s)`);
  }
  console.log(`e2e: total ${((Date.now() - t0) / 1000).toFixed(1)} s; screenshots in ${ARTIFACTS}`);
  if (skipped.length) console.log(`e2e: skipped ${skipped.join(', ')} (see SKIP above)`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

await main();
