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

/** One code-server with a fresh profile, workspace and browser. */
class Run {
  constructor(name, { settings = {}, workspaceSettings = {}, policy, files = {}, executables = [], trust = false } = {}) {
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

// The workspace policy of the approval scenarios: deploy is allowed, and a person decides.
const approvalPolicy = { allow: ['read_file', 'deploy'], needsHuman: ['deploy'] };
const deploy = (target) => ({ method: 'check', params: { tool: 'deploy', args: { target }, context: { agent: 'e2e-fixture' } } });

const scenarios = [
  {
    id: 1,
    name: "activation shows the mode from the person's settings",
    opts: { settings: { 'admit.mode': 'enforce', 'admit.effects': 'workspace-write' }, files: { 'a.txt': 'hello\n' } },
    async run(r) {
      const text = await r.waitStatus(/admit: enforce · workspace-write/);
      log(`status: ${text}`);
      await r.shot('1-status-bar', r.page.locator('.part.statusbar'));
      // The server got the settings: a call is decided in enforce mode and taped at admit.tape.
      await r.fixtureReady();
      const [res] = await r.result(r.send([{ method: 'check', params: { tool: 'no_such_tool', args: {} } }]));
      assert(res.ok, `check failed: ${res.error}`);
      assert(res.value.mode === 'enforce' && res.value.allowed === false && res.value.rule === 'not-in-allow-list', `verdict ${JSON.stringify(res.value)}`);
      await r.tapeRecord('the refusal in enforce mode', (x) => x.tool === 'no_such_tool' && x.mode === 'enforce' && x.rule === 'not-in-allow-list');
    },
  },
  {
    id: 2,
    name: "the Quick Pick marks the current mode, writes the person's settings (not the repository's), and the server reports it",
    opts: { settings: { 'admit.mode': 'enforce', 'admit.effects': 'read-only' } },
    async run(r) {
      await r.waitStatus(/admit: enforce · read-only/);
      await r.status().click();
      const qi = r.page.locator('.quick-input-widget');
      await qi.filter({ hasText: 'admit: mode' }).waitFor({ timeout: LONG });
      await qi.locator('.monaco-list-row', { hasText: 'current' }).filter({ hasText: 'enforce' }).waitFor({ timeout: LONG });
      await r.shot('2-quick-pick-mode', qi);
      await r.page.keyboard.type('warn');
      await qi.locator('.monaco-list-row', { hasText: 'Decide and record every call' }).waitFor({ timeout: LONG });
      await r.page.keyboard.press('Enter');
      await qi.filter({ hasText: 'admit: effects' }).waitFor({ timeout: LONG });
      await qi.locator('.monaco-list-row', { hasText: 'current' }).filter({ hasText: 'read-only' }).waitFor({ timeout: LONG });
      await r.shot('2-quick-pick-effects', qi);
      await r.page.keyboard.type('workspace-write');
      await qi.locator('.monaco-list-row', { hasText: 'inside the workspace folders' }).waitFor({ timeout: LONG });
      await r.page.keyboard.press('Enter');
      // The status bar is redrawn from the server's admit/didChangeState.
      const text = await r.waitStatus(/admit: warn · workspace-write/);
      log(`status: ${text}`);
      await r.shot('2-status-after', r.page.locator('.part.statusbar'));
      await waitFor('the user setting', () => /"admit\.mode":\s*"warn"/.test(fs.readFileSync(r.userSettings, 'utf8')) && /"admit\.effects":\s*"workspace-write"/.test(fs.readFileSync(r.userSettings, 'utf8')));
      assert(!fs.existsSync(path.join(r.ws, '.vscode', 'settings.json')), 'the picker wrote into the repository');
      // The server decides in warn mode now: a refused call is let through and taped as would-deny.
      await r.fixtureReady();
      const [res] = await r.result(r.send([{ method: 'check', params: { tool: 'no_such_tool', args: {} } }]));
      assert(res.ok && res.value.mode === 'warn' && res.value.verdict === 'deny' && res.value.allowed === true, `verdict ${JSON.stringify(res.value)}`);
      await r.tapeRecord('a warn-mode record', (x) => x.tool === 'no_such_tool' && x.mode === 'warn' && x.allowed === true);
    },
  },
  {
    id: 3,
    name: '"Allow once" admits a call that needs a person, and the tape says a person approved',
    opts: { workspaceSettings: { 'admit.mode': 'enforce' }, policy: approvalPolicy },
    async run(r) {
      await r.waitStatus(/admit: enforce/);
      await r.fixtureReady();
      const name = r.send([deploy('staging')]);
      const toast = await r.toast('deploy');
      await r.waitStatus(/1 pending/).catch(() => log('(no pending count shown)'));
      await r.shot('3-approval-prompt');
      await toast.getByRole('button', { name: 'Allow once' }).click();
      const [res] = await r.result(name);
      assert(res.ok && res.value.allowed === true && res.value.rule === 'human-approved', `verdict ${JSON.stringify(res.value)}`);
      const rec = await r.tapeRecord('human-approved deploy', (x) => x.tool === 'deploy' && x.rule === 'human-approved');
      assert(rec.decidedBy === 'person', `decidedBy ${rec.decidedBy}`);
      assert(rec.verdict === 'allow' && rec.allowed === true, `tape ${JSON.stringify(rec)}`);
    },
  },
  {
    id: 4,
    name: '"Deny" refuses it',
    opts: { workspaceSettings: { 'admit.mode': 'enforce' }, policy: approvalPolicy },
    async run(r) {
      await r.waitStatus(/admit: enforce/);
      await r.fixtureReady();
      const name = r.send([deploy('production')]);
      const toast = await r.toast('deploy');
      await toast.getByRole('button', { name: 'Deny' }).click();
      const [res] = await r.result(name);
      assert(res.ok && res.value.allowed === false && res.value.rule === 'human-denied', `verdict ${JSON.stringify(res.value)}`);
      assert(typeof res.value.toolError === 'string' && res.value.toolError.length > 0, 'a refusal carries toolError');
      const rec = await r.tapeRecord('human-denied deploy', (x) => x.tool === 'deploy' && x.rule === 'human-denied');
      assert(rec.decidedBy === 'person' && rec.allowed === false, `tape ${JSON.stringify(rec)}`);
    },
  },
  {
    id: 5,
    name: 'the server killed mid-question: the call is refused, the server restarts, the status bar recovers',
    opts: { workspaceSettings: { 'admit.mode': 'enforce' }, policy: approvalPolicy },
    async run(r) {
      await r.waitStatus(/admit: enforce/);
      await r.fixtureReady();
      const [first] = await waitFor('one admit server', () => { const p = r.serverPids(); return p.length === 1 && p; });
      const name = r.send([deploy('killed')]);
      await r.toast('deploy');
      log(`killing admit serve pid ${first}`);
      process.kill(first, 'SIGKILL');
      const [res] = await r.result(name);
      assert(res.ok && res.value.allowed === false, `the call was not refused: ${JSON.stringify(res)}`);
      log(`refused with rule ${res.value.rule}`);
      const [second] = await waitFor('a new admit server', () => { const p = r.serverPids().filter((x) => x !== first); return p.length === 1 && p; });
      const text = await r.waitStatus(/admit: enforce/);
      log(`restarted as pid ${second}; status: ${text}`);
      await r.shot('5-status-recovered', r.page.locator('.part.statusbar'));
      // The new server answers again.
      const [after] = await r.result(r.send([{ method: 'check', params: { tool: 'read_file', args: { path: 'nothing.txt' } } }]));
      assert(after.ok && after.value.rule !== 'server-unavailable', `after restart: ${JSON.stringify(after)}`);
    },
  },
  {
    id: 6,
    name: 'the decisions view lists the calls',
    opts: { workspaceSettings: { 'admit.mode': 'enforce' }, policy: approvalPolicy, files: { 'a.txt': 'hello\n' } },
    async run(r) {
      await r.waitStatus(/admit: enforce/);
      await r.fixtureReady();
      const [a, b] = await r.result(r.send([
        { method: 'check', params: { tool: 'read_file', args: { path: 'a.txt' } } },
        { method: 'check', params: { tool: 'rm_everything', args: {} }, via: 'command' },
      ]));
      assert(a.ok && a.value.allowed === true, `read_file: ${JSON.stringify(a)}`);
      assert(b.ok && b.value.allowed === false, `rm_everything: ${JSON.stringify(b)}`);
      const name = r.send([deploy('view')]);
      await (await r.toast('deploy')).getByRole('button', { name: 'Deny' }).click();
      await r.result(name);
      // Open the view from the activity bar.
      await r.page.locator('.activitybar').getByRole('tab', { name: /^admit/ }).first().click();
      const pane = r.page.locator('.pane', { has: r.page.locator('.pane-header', { hasText: /Decisions/i }) });
      const rows = pane.locator('.monaco-list-row');
      await waitFor('three decisions in the view', async () => (await rows.count()) >= 3);
      const labels = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
      log(`view rows: ${JSON.stringify(labels)}`);
      assert(/^deploy/.test(labels[0]) && /human-denied/.test(labels[0]), 'newest first: the denied deploy');
      assert(labels.some((l) => /^rm_everything/.test(l) && /refused/.test(l)), 'the refusal is listed');
      assert(labels.some((l) => /^read_file/.test(l) && /allowed/.test(l)), 'the allowed read is listed');
      assert(await pane.locator('.codicon-question').count() >= 1, 'asked icon');
      assert(await pane.locator('.codicon-error').count() >= 1, 'refused icon');
      assert(await pane.locator('.codicon-pass').count() >= 1, 'allowed icon');
      await r.shot('6-decisions-view');
      // A click opens the record as a read-only JSON document.
      await rows.first().click();
      await r.page.locator('.tab', { hasText: /decision-.*\.json/ }).first().waitFor({ timeout: LONG });
      await r.page.locator('.monaco-editor .view-lines', { hasText: 'human-denied' }).first().waitFor({ timeout: LONG });
      await r.shot('6-decision-details');
    },
  },
  {
    id: 7,
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
      await r.shot('7-hostile-settings');
      // Each ignored value VS Code hands over is said in the output channel. (server.path and
      // tape are machine-scoped: VS Code never passes a workspace value of them on at all.)
      const out = await waitFor('the notes in the admit output', () => { const o = r.outputLog(); return /admit\.mode: .* ignored/.test(o) && o; });
      for (const k of ['mode', 'effects', 'approvalTimeoutMs']) assert(new RegExp(`admit\\.${k}: the workspace's \\.vscode/settings\\.json sets .*ignored`).test(out), `no note for admit.${k}`);
    },
  },
  {
    id: 8,
    name: 'an agent command holding a command link is inert in the tooltip, the toast and the decisions view',
    opts: { workspaceSettings: { 'admit.mode': 'enforce' }, policy: approvalPolicy },
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
      // A call that asks a person, with the link in its arguments: the toast shows it as text.
      const name = r.send([deploy(link)]);
      const toast = r.page.locator('.notification-toast').filter({ hasText: 'Answer the waiting question' }).filter({ has: r.page.getByRole('button', { name: 'Allow once' }) }).first();
      await toast.waitFor({ timeout: LONG });
      await toast.getByRole('button', { name: 'Deny' }).click({ trial: true, timeout: LONG });
      const message = toast.locator('.notification-list-item-message');
      const msg = await message.innerText();
      log(`toast: ${msg}`);
      assert(msg.includes(shown) && msg.includes('command:workbench.action.terminal.sendSequence'), `the toast does not show the text: ${msg}`);
      assert(await message.locator('a').count() === 0, 'the toast message holds a link');
      await r.shot('8-toast-inert', toast);
      await toast.getByRole('button', { name: 'Deny' }).click();
      const [denied] = await r.result(name);
      assert(denied.ok && denied.value.rule === 'human-denied', `deploy: ${JSON.stringify(denied)}`);
      // The status bar tooltip's last decision holds the link as text.
      const tip = await r.hover(r.status(), 'Answer the waiting question');
      log(`tooltip: ${(await tip.innerText()).replace(/\s+/g, ' ')}`);
      await noCommandAnchors(tip, 'the status bar tooltip');
      assert(await tip.locator('a').count() === 0, 'the status bar tooltip holds a link');
      await r.shot('8-tooltip-inert', tip);
      // The decisions view: rows and their tooltips.
      await r.page.mouse.move(1, 1);
      await r.page.locator('.activitybar').getByRole('tab', { name: /^admit/ }).first().click();
      const pane = r.page.locator('.pane', { has: r.page.locator('.pane-header', { hasText: /Decisions/i }) });
      const rows = pane.locator('.monaco-list-row');
      await waitFor('two decisions in the view', async () => (await rows.count()) >= 2);
      const labels = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
      log(`view rows: ${JSON.stringify(labels)}`);
      assert(labels.some((l) => l.startsWith(shown) && /refused/.test(l)), 'the link-named tool is listed by its text');
      assert(labels.some((l) => /^deploy/.test(l) && l.includes('Answer the waiting question')), 'the deploy summary is listed as text');
      await noCommandAnchors(pane, 'the decisions view');
      const rowTip = await r.hover(rows.filter({ hasText: 'deploy' }).first(), 'human-denied');
      log(`row tooltip: ${(await rowTip.innerText()).replace(/\s+/g, ' ')}`);
      assert((await rowTip.innerText()).includes('Answer the waiting question'), 'the row tooltip shows the summary');
      await noCommandAnchors(rowTip, 'the row tooltip');
      assert(await rowTip.locator('a').count() === 0, 'the row tooltip holds a link');
      await r.shot('8-view-inert');
      assert(!fs.existsSync(path.join(r.ws, 'PWNED')), 'a command was typed into a terminal');
    },
  },
  {
    id: 9,
    name: "Restricted Mode runs the gate in enforce and read-only; trusting the folder gives the person's settings back",
    opts: { trust: true, settings: { 'admit.mode': 'warn', 'admit.effects': 'workspace-write' } },
    async run(r) {
      // The folder is not trusted: the person's warn and workspace-write do not apply yet.
      const before = await r.waitStatus(/admit: enforce · read-only/);
      log(`restricted: ${before}`);
      const tip = await r.hover(r.status(), 'Restricted Mode');
      await r.shot('9-restricted', tip);
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
      await r.shot('9-trusted', r.page.locator('.part.statusbar'));
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
  const t0 = Date.now();
  for (const s of scenarios) {
    if (only && !only.has(s.id)) continue;
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
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

await main();
