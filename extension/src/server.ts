// Starting and keeping the admit server: vscode-languageclient over stdio, the
// admit.* settings as initialization options (read from the person's settings, see
// settings.ts), the custom notifications and the approval request wired to the views,
// and a bounded number of restarts after a crash.
import * as fs from 'fs';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, LanguageClient, RevealOutputChannelOn, State, TransportKind,
  type ClientCapabilities, type FeatureState, type LanguageClientOptions, type ServerOptions as LspServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import type { ApprovalQueue } from './approvals';
import { Methods, type AdmitState, type ApprovalAnswer, type ApproveParams, type Decision } from './protocol';
import { RestartPolicy } from './restart';
import {
  bundledServer, readSettings, resolveServer, serverOptions,
  type FileProbe, type LayerSource, type PathContext, type ServerBinary, type ServerOptions, type Settings,
} from './settings';
import { noticeKey, untrustedNotice } from './policyTrust';
import { errorNotices, type StatusBar } from './status';
import { plain } from './text';

/** ApproveFeature declares capabilities.experimental.admit.approve: this client renders admit/approve. */
class ApproveFeature implements StaticFeature {
  fillClientCapabilities(caps: ClientCapabilities): void {
    const experimental = (caps.experimental ?? {}) as Record<string, unknown>;
    const admit = (experimental.admit ?? {}) as Record<string, unknown>;
    caps.experimental = { ...experimental, admit: { ...admit, approve: true } };
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

/**
 * layerSource reads each admit.* key's layers from VS Code: the person's value
 * (`globalValue`: user and machine settings), the default, and what the repository
 * wrote (the workspace's value, and each folder's in a multi-root workspace).
 */
export function layerSource(): LayerSource {
  const root = vscode.workspace.getConfiguration('admit');
  // In a single-folder window the folder's settings are the workspace's: read them once.
  const folders = vscode.workspace.workspaceFile ? vscode.workspace.workspaceFolders ?? [] : [];
  const where = vscode.workspace.workspaceFile ? `the workspace file ${vscode.workspace.workspaceFile.fsPath}` : "the workspace's .vscode/settings.json";
  return (key) => {
    const i = root.inspect(key);
    const repo: { where: string; value: unknown }[] = [];
    if (i?.workspaceValue !== undefined) repo.push({ where, value: i.workspaceValue });
    for (const f of folders) {
      const fi = vscode.workspace.getConfiguration('admit', f.uri).inspect(key);
      if (fi?.workspaceFolderValue !== undefined) repo.push({ where: `the folder ${f.name}'s .vscode/settings.json`, value: fi.workspaceFolderValue });
    }
    return { person: i?.globalValue, default: i?.defaultValue, repo };
  };
}

/** settings are the admit.* settings in force now (the notes are dropped; AdmitServer logs them). */
export function settings(): Settings {
  return readSettings(layerSource(), vscode.workspace.isTrusted).settings;
}

function pathContext(): PathContext {
  return {
    home: os.homedir(),
    folders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => ({ name: f.name, path: f.uri.fsPath })),
  };
}

const probe: FileProbe = {
  realpath: (p) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return undefined;
    }
  },
  isFile: (p) => {
    try {
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  },
  isExecutable: (p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
};

/** ensureExecutable restores the execute bit of the bundled binary, which some unzippers drop. */
function ensureExecutable(bundled: string): void {
  if (process.platform === 'win32' || !fs.existsSync(bundled)) return;
  try {
    fs.accessSync(bundled, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(bundled, 0o755);
    } catch {
      // start() reports the failure
    }
  }
}

/** What a start was made from: a change in any of these restarts the server. */
interface StartedFrom {
  serverPath: string;
  tape: string;
  approvalTimeoutMs: number;
  command?: string;
}

type Posture = Pick<ServerOptions, 'mode' | 'effects' | 'shell'>;

/** The person's settings the server takes at once with workspace/didChangeConfiguration. */
type Choices = Pick<ServerOptions, 'secretPatterns' | 'confinedRuns' | 'acceptWeakerConfinement'>;

const choicesOf = (o: Choices): Choices => ({ secretPatterns: o.secretPatterns, confinedRuns: o.confinedRuns, acceptWeakerConfinement: o.acceptWeakerConfinement });

export class ServerUnavailableError extends Error {}

/**
 * An ApproveInterceptor answers the server's questions that belong to something of the
 * extension's own (the language-model tools, lmTools.ts); undefined: not its question,
 * and the prompt asks the person.
 */
export type ApproveInterceptor = (params: ApproveParams, token: vscode.CancellationToken) => Promise<ApprovalAnswer> | undefined;

export class AdmitServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly restarts = new RestartPolicy();
  private gaveUp = false;
  private readonly stateEmitter = new vscode.EventEmitter<AdmitState>();
  private readonly decideEmitter = new vscode.EventEmitter<Decision>();
  /** Fires with every State the server pushes, and the one fetched after each start. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires with every decision the server announces. */
  readonly onDidDecide = this.decideEmitter.event;
  private disposables: vscode.Disposable[] = [];
  private lastState: AdmitState | undefined;
  private starts = 0;
  /** The settings the last start was made from. */
  private startedFrom: StartedFrom | undefined;
  /** The mode, effects and shell the server was last given (initialize or admit/setMode). */
  private sent: Posture | undefined;
  /** The secret patterns, confined runs and weaker confinement the server was last given. */
  private sentChoices: Choices | undefined;
  /** Why the server was not started, while it is not. */
  private startError: string | undefined;
  /** The settings notes already logged, so a standing one is logged once. */
  private notes = new Set<string>();
  private pathNotes = new Set<string>();
  private shownErrors = { policy: '', tape: '' };
  /** The untrusted policy state last told in a notification, so each new or changed file is told once. */
  private trustNoticed: string | undefined;
  /** The foreign mode/effects/shell last set back, so each is set back once. */
  private reasserted: string | undefined;
  /** The settings changes being followed, in order. */
  private changes: Promise<void> = Promise.resolve();
  private readonly interceptors: ApproveInterceptor[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.OutputChannel,
    private readonly status: StatusBar,
    private readonly approvals: ApprovalQueue,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('admit.approvals.modal')) {
          this.log(`settings: questions are asked ${settings().modal ? 'in a modal dialog' : 'in a panel beside the editor'} now`);
        }
        if (e.affectsConfiguration('admit')) void this.settingsChanged();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log('the workspace is trusted now: your settings apply');
        void this.settingsChanged();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.settingsChanged()),
    );
  }

  get state(): AdmitState | undefined {
    return this.lastState;
  }

  /** How many times a server came up: a new value means a new server, whose rules are read again. */
  get startCount(): number {
    return this.starts;
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  private log(msg: string): void {
    this.output.appendLine(`[client ${new Date().toISOString()}] ${msg}`);
  }

  /** settings reads the settings in force and logs each note (an ignored or tightened value) the first time it stands. */
  settings(): Settings {
    const r = readSettings(layerSource(), vscode.workspace.isTrusted);
    const now = new Set(r.notes);
    for (const n of now) if (!this.notes.has(n)) this.log(`settings: ${n}`);
    this.notes = now;
    this.status.setRestricted(r.settings.restricted);
    return r.settings;
  }

  private resolve(s: Settings): ServerBinary {
    const bundled = bundledServer(this.context.extensionPath);
    ensureExecutable(bundled);
    const bin = resolveServer(s.serverPath, { ...pathContext(), extensionPath: this.context.extensionPath, pathEnv: process.env.PATH ?? '', probe });
    const now = new Set(bin.notes);
    for (const n of now) if (!this.pathNotes.has(n)) this.log(n);
    this.pathNotes = now;
    return bin;
  }

  /** initOptions are the initialization options of every (re)start: the settings in force, the tape and timeout of this start. */
  private initOptions(fixed: ServerOptions): ServerOptions {
    const o = this.optionsNow(fixed);
    this.sent = { mode: o.mode, effects: o.effects, shell: o.shell };
    this.sentChoices = choicesOf(o);
    return o;
  }

  private optionsNow(fixed: ServerOptions): ServerOptions {
    const s = this.settings();
    return { ...fixed, mode: s.mode, effects: s.effects, shell: s.shell, ...choicesOf(s) };
  }

  private createClient(command: string, options: ServerOptions): LanguageClient {
    this.log(`starting ${command} serve`);
    const serverOpts: LspServerOptions = {
      run: { command, args: ['serve'], transport: TransportKind.stdio },
      debug: { command, args: ['serve'], transport: TransportKind.stdio },
    };
    const clientOpts: LanguageClientOptions = {
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: () => this.initOptions(options),
      workspaceFolder: undefined,
      // The server gets its settings from initializationOptions and admit/setMode. Should
      // it ever pull them (workspace/configuration), it gets the same: the settings in
      // force, never VS Code's merged view, which holds the repository's values.
      middleware: {
        workspace: {
          configuration: (params) => params.items.map((it) => (it.section === 'admit' ? this.optionsNow(options) : null)),
        },
      },
      errorHandler: {
        error: (_e, _m, count) => ({ action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true }),
        closed: () => this.onClosed(),
      },
    };
    const client = new LanguageClient('admit', 'admit', serverOpts, clientOpts);
    client.registerFeature(new ApproveFeature());
    client.onRequest(Methods.approve, async (params: ApproveParams, token: vscode.CancellationToken) => {
      token.onCancellationRequested(() => this.approvals.cancel(params.id));
      // JSON: every text escaped, one line (a huge command is cut; the prompt shows it whole).
      const asked = JSON.stringify(params);
      this.log(`asked ${asked.length > 20_000 ? `${asked.slice(0, 20_000)}… (cut)` : asked}`);
      for (const intercept of this.interceptors) {
        const mine = intercept(params, token);
        if (mine) return { answer: await mine };
      }
      const answer = await this.approvals.ask(params);
      return { answer };
    });
    client.onNotification(Methods.approvalCancelled, (p: { id: string }) => {
      this.approvals.cancel(p.id);
    });
    client.onNotification(Methods.didChangeState, (st: AdmitState) => this.setState(st));
    client.onNotification(Methods.didDecide, (d: Decision) => this.decideEmitter.fire(d));
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.starts++;
        void this.fetchState();
      } else if (e.newState === State.Starting) {
        this.status.setStarting();
      } else if (e.newState === State.Stopped) {
        // Questions asked by a server that is gone no longer stand.
        this.approvals.cancelAll();
      }
    });
    return client;
  }

  private async onClosed(): Promise<{ action: CloseAction; message?: string; handled: boolean }> {
    this.approvals.cancelAll();
    if (this.restarts.onCrash()) {
      const delay = this.restarts.delayMs();
      this.log(`the server exited; restarting${delay ? ` in ${delay} ms` : ''} (${this.restarts.recent} of ${this.restarts.maxRestarts} in the window)`);
      this.status.setStarting();
      if (delay) await new Promise((r) => setTimeout(r, delay));
      return { action: CloseAction.Restart, handled: true };
    }
    const message = this.restarts.gaveUpMessage();
    this.log(message);
    this.gaveUp = true;
    this.status.setStopped(message);
    void vscode.window.showErrorMessage(message, 'Restart').then((c) => {
      if (c === 'Restart') void vscode.commands.executeCommand('admit.restartServer');
    });
    return { action: CloseAction.DoNotRestart, message, handled: true };
  }

  /** applyState draws a State the server answered with (admit/trustPolicy, admit/setMode) as if it had pushed it. */
  applyState(st: AdmitState): void {
    this.setState(st);
  }

  private setState(st: AdmitState): void {
    this.lastState = st;
    this.status.setState(st);
    this.stateEmitter.fire(st);
    this.announceErrors(st);
    this.announceTrust(st);
    this.holdPosture(st);
    // Agents in the editor's terminals (Claude Code, Gemini CLI hooks, MCP
    // gateways) reach the same gate through the socket the server names.
    const env = this.context.environmentVariableCollection;
    if (st.socket) {
      if (env.get('ADMIT_SOCKET')?.value !== st.socket) env.replace('ADMIT_SOCKET', st.socket);
    } else if (env.get('ADMIT_SOCKET')) {
      env.delete('ADMIT_SOCKET');
    }
    // Copilot's Local harness runs its hooks from this extension host, in the home
    // folder with no cwd and this process's environment (vscode-copilot-chat
    // hookExecutor.ts: { ...process.env, ...hook.env }): ADMIT_SOCKET there is how
    // `admit hook copilot` finds this window's server rather than deciding alone.
    if (st.socket) process.env.ADMIT_SOCKET = st.socket;
    else delete process.env.ADMIT_SOCKET;
  }

  /**
   * holdPosture puts the person's mode, effects and shell back when the server reports
   * others than the editor gave it (only the editor's connection may configure the gate;
   * this holds even against a server that lets another client do it). Once per foreign
   * state, so a server that keeps its own answer is not asked in a loop.
   */
  private holdPosture(st: AdmitState): void {
    const want = this.sent;
    if (!want || !this.running) return;
    if (st.mode === want.mode && st.effects === want.effects && st.shell === want.shell) {
      this.reasserted = undefined;
      return;
    }
    const key = `${st.mode}/${st.effects}/${st.shell}`;
    if (this.reasserted === key) return;
    this.reasserted = key;
    this.log(`the server reports ${key}, not the ${want.mode}/${want.effects}/${want.shell} the editor gave it; setting it back`);
    this.request<AdmitState>(Methods.setMode, want).then(
      (res) => {
        if (res && typeof res === 'object' && 'mode' in res) this.setState(res);
      },
      (err) => this.log(`admit/setMode ${JSON.stringify(want)}: ${String(err)}`),
    );
  }

  /** announceErrors shows a notification when the policy file or the tape becomes unusable (once per error text). */
  private announceErrors(st: AdmitState): void {
    const notices = errorNotices(st);
    const policy = typeof st.policyError === 'string' ? st.policyError : '';
    if (policy !== this.shownErrors.policy) {
      this.shownErrors.policy = policy;
      if (notices.policy) {
        this.log(notices.policy);
        void vscode.window.showErrorMessage(notices.policy);
      } else {
        this.log('the policy file is usable again');
      }
    }
    const tape = typeof st.tapeError === 'string' ? st.tapeError : '';
    if (tape !== this.shownErrors.tape) {
      this.shownErrors.tape = tape;
      if (notices.tape) {
        this.log(notices.tape);
        void vscode.window.showErrorMessage(notices.tape);
      }
    }
  }

  /**
   * announceTrust tells the person when the workspace policy file becomes untrusted (a
   * new file, or a trusted one that changed): it only tightens until they review it.
   */
  private announceTrust(st: AdmitState): void {
    const key = noticeKey(st);
    if (key === this.trustNoticed) return;
    this.trustNoticed = key;
    if (key === undefined) return;
    const notice = untrustedNotice(st);
    this.log(notice);
    void vscode.window.showWarningMessage(notice, 'Review', 'Keep untrusted').then((c) => {
      if (c === 'Review') void vscode.commands.executeCommand('admit.reviewPolicy');
    });
  }

  private async fetchState(): Promise<void> {
    try {
      const st = await this.request<AdmitState>(Methods.state, {});
      this.setState(st);
    } catch (e) {
      this.log(`admit/state failed: ${String(e)}`);
    }
  }

  /** refuseToStart says why nothing was started: in the output, the status bar and a notification. */
  private refuseToStart(message: string): void {
    this.startError = message;
    this.log(message);
    this.status.setStopped(message);
    void vscode.window.showErrorMessage(plain(`admit: ${message}`), 'Open User Settings').then((c) => {
      if (c === 'Open User Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'admit.');
    });
  }

  async start(): Promise<void> {
    this.gaveUp = false;
    this.startError = undefined;
    this.status.setStarting();
    const s = this.settings();
    const bin = this.resolve(s);
    this.startedFrom = { serverPath: s.serverPath, tape: s.tape, approvalTimeoutMs: s.approvalTimeoutMs, command: 'command' in bin ? bin.command : undefined };
    if ('error' in bin) return this.refuseToStart(bin.error);
    const opts = serverOptions(s, pathContext());
    if ('error' in opts) return this.refuseToStart(opts.error);
    const client = this.createClient(bin.command, opts.options);
    this.client = client;
    try {
      await client.start();
    } catch (e) {
      const message = `Could not start the admit server ${bin.command}: ${e instanceof Error ? e.message : String(e)}. Set admit.server.path in your user settings, or put admit on PATH.`;
      this.startError = message;
      this.log(message);
      this.status.setStopped(message);
    }
  }

  /** restart stops the server (if it runs) and starts a fresh one; a person asked, so crashes are forgotten. */
  async restart(): Promise<void> {
    this.restarts.reset();
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    this.sent = undefined;
    this.sentChoices = undefined;
    this.approvals.cancelAll();
    if (!c) return;
    try {
      if (c.isRunning()) await c.stop(3000);
    } catch (e) {
      this.log(`stopping the server: ${String(e)}`);
    }
    try {
      await c.dispose(1000);
    } catch {
      // already stopped
    }
  }

  /** interceptApprovals lets f answer the questions that are its own, before the prompt asks. */
  interceptApprovals(f: ApproveInterceptor): vscode.Disposable {
    this.interceptors.push(f);
    return { dispose: () => void this.interceptors.splice(this.interceptors.indexOf(f) >>> 0, 1) };
  }

  /** request sends one admit/* request; it rejects with ServerUnavailableError when there is no server to ask. A cancelled token sends $/cancelRequest. */
  async request<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R> {
    const c = this.client;
    if (!c || this.gaveUp || (c.state !== State.Running && c.state !== State.Starting)) {
      const why = this.gaveUp ? 'the admit server is stopped after repeated crashes' : `the admit server is not running${this.startError ? `: ${this.startError}` : ''}`;
      throw new ServerUnavailableError(why);
    }
    try {
      return await (token ? c.sendRequest<R>(method, params, token) : c.sendRequest<R>(method, params));
    } catch (e) {
      if (c.state !== State.Running || /disposed|closed|not running|stopped/i.test(String(e))) {
        throw new ServerUnavailableError(`the admit server went away during ${method}: ${e instanceof Error ? e.message : String(e)}`);
      }
      throw e;
    }
  }

  /**
   * settingsChanged follows a change of the settings, of Workspace Trust or of the
   * folders: a different binary, tape or approval timeout restarts the server; a
   * different mode, effects or shell is sent with admit/setMode, and different secret
   * patterns, confined runs or weaker confinement with workspace/didChangeConfiguration.
   */
  settingsChanged(): Promise<void> {
    // One at a time: two changes in a row must not start two servers.
    const next = this.changes.then(() => this.followSettings());
    this.changes = next.catch((e) => this.log(`following the settings: ${String(e)}`));
    return next;
  }

  private async followSettings(): Promise<void> {
    const s = this.settings();
    const from = this.startedFrom;
    if (from) {
      const bin = this.resolve(s);
      const command = 'command' in bin ? bin.command : undefined;
      if (s.serverPath !== from.serverPath || s.tape !== from.tape || s.approvalTimeoutMs !== from.approvalTimeoutMs || command !== from.command) {
        this.log('the server binary, the tape or the approval timeout changed; restarting');
        await this.restart();
        return;
      }
    }
    await this.applyPosture({ mode: s.mode, effects: s.effects, shell: s.shell });
    await this.applyChoices(choicesOf(s));
  }

  /** applyChoices sends the person's other settings when they differ from what the server was given. */
  private async applyChoices(want: Choices): Promise<void> {
    const c = this.client;
    if (!c || c.state !== State.Running) return;
    const had = this.sentChoices;
    if (had && JSON.stringify(had) === JSON.stringify(want)) return;
    this.sentChoices = want;
    try {
      await c.sendNotification('workspace/didChangeConfiguration', { settings: { admit: want } });
    } catch (err) {
      this.sentChoices = had;
      this.log(`workspace/didChangeConfiguration ${JSON.stringify(want)}: ${String(err)}`);
    }
  }

  /** applyPosture sends the mode, effects and shell with admit/setMode when they differ from what the server was given. */
  private async applyPosture(want: Posture): Promise<void> {
    const c = this.client;
    if (!c || c.state !== State.Running) return;
    const had = this.sent;
    if (had && had.mode === want.mode && had.effects === want.effects && had.shell === want.shell) return;
    this.sent = want;
    try {
      const st = await this.request<AdmitState>(Methods.setMode, want);
      if (st && typeof st === 'object' && 'mode' in st) this.setState(st);
    } catch (err) {
      this.sent = had;
      this.log(`admit/setMode ${JSON.stringify(want)}: ${String(err)}`);
    }
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) d.dispose();
    this.stateEmitter.dispose();
    this.decideEmitter.dispose();
  }
}
