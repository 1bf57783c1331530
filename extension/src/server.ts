// Starting and keeping the admit server: vscode-languageclient over stdio, the
// admit.* settings as initialization options, the custom notifications and the
// approval request wired to the views, and a bounded number of restarts after a crash.
import * as fs from 'fs';
import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, LanguageClient, RevealOutputChannelOn, State, TransportKind,
  type ClientCapabilities, type FeatureState, type LanguageClientOptions, type ServerOptions as LspServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import type { ApprovalQueue } from './approvals';
import { Methods, type AdmitState, type ApproveParams, type Decision } from './protocol';
import { RestartPolicy } from './restart';
import { readSettings, resolveServerPath, serverOptions, type Settings } from './settings';
import type { StatusBar } from './status';

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

export function settings(): Settings {
  const cfg = vscode.workspace.getConfiguration('admit');
  return readSettings(<T>(key: string, fallback: T) => cfg.get<T>(key, fallback));
}

/** ensureExecutable restores the execute bit of the bundled binary, which some unzippers drop. */
function ensureExecutable(command: string, extensionPath: string): void {
  if (!command.startsWith(extensionPath) || process.platform === 'win32') return;
  try {
    fs.accessSync(command, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(command, 0o755);
    } catch {
      // start() reports the failure
    }
  }
}

export class ServerUnavailableError extends Error {}

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

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.OutputChannel,
    private readonly status: StatusBar,
    private readonly approvals: ApprovalQueue,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('admit')) void this.configurationChanged(e);
      }),
    );
  }

  get state(): AdmitState | undefined {
    return this.lastState;
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  private log(msg: string): void {
    this.output.appendLine(`[client ${new Date().toISOString()}] ${msg}`);
  }

  private createClient(): LanguageClient {
    const s = settings();
    const command = resolveServerPath(s.serverPath, this.context.extensionPath, (p) => fs.existsSync(p));
    ensureExecutable(command, this.context.extensionPath);
    this.log(`starting ${command} serve`);
    const serverOpts: LspServerOptions = {
      run: { command, args: ['serve'], transport: TransportKind.stdio },
      debug: { command, args: ['serve'], transport: TransportKind.stdio },
    };
    const clientOpts: LanguageClientOptions = {
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: () => serverOptions(settings()),
      workspaceFolder: undefined,
      errorHandler: {
        error: (_e, _m, count) => ({ action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true }),
        closed: () => this.onClosed(),
      },
    };
    const client = new LanguageClient('admit', 'admit', serverOpts, clientOpts);
    client.registerFeature(new ApproveFeature());
    client.onRequest(Methods.approve, async (params: ApproveParams, token: vscode.CancellationToken) => {
      token.onCancellationRequested(() => this.approvals.cancel(params.id));
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

  private setState(st: AdmitState): void {
    this.lastState = st;
    this.status.setState(st);
    this.stateEmitter.fire(st);
    // Agents in the editor's terminals (Claude Code, Gemini CLI hooks, MCP
    // gateways) reach the same gate through the socket the server names.
    const env = this.context.environmentVariableCollection;
    if (st.socket) {
      if (env.get('ADMIT_SOCKET')?.value !== st.socket) env.replace('ADMIT_SOCKET', st.socket);
    } else if (env.get('ADMIT_SOCKET')) {
      env.delete('ADMIT_SOCKET');
    }
  }

  private async fetchState(): Promise<void> {
    try {
      const st = await this.request<AdmitState>(Methods.state, {});
      this.setState(st);
    } catch (e) {
      this.log(`admit/state failed: ${String(e)}`);
    }
  }

  async start(): Promise<void> {
    this.gaveUp = false;
    this.status.setStarting();
    const client = this.createClient();
    this.client = client;
    try {
      await client.start();
    } catch (e) {
      const message = `Could not start the admit server: ${e instanceof Error ? e.message : String(e)}. Set admit.server.path or put admit on PATH.`;
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

  /** request sends one admit/* request; it rejects with ServerUnavailableError when there is no server to ask. */
  async request<R>(method: string, params: unknown): Promise<R> {
    const c = this.client;
    if (!c || this.gaveUp || (c.state !== State.Running && c.state !== State.Starting)) {
      throw new ServerUnavailableError(this.gaveUp ? 'the admit server is stopped after repeated crashes' : 'the admit server is not running');
    }
    try {
      return await c.sendRequest<R>(method, params);
    } catch (e) {
      if (c.state !== State.Running || /disposed|closed|not running|stopped/i.test(String(e))) {
        throw new ServerUnavailableError(`the admit server went away during ${method}: ${e instanceof Error ? e.message : String(e)}`);
      }
      throw e;
    }
  }

  private async configurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
    const c = this.client;
    if (e.affectsConfiguration('admit.server.path')) {
      this.log('admit.server.path changed; restarting');
      await this.restart();
      return;
    }
    if (!c || c.state !== State.Running) return;
    const opts = serverOptions(settings());
    try {
      await c.sendNotification('workspace/didChangeConfiguration', { settings: { admit: opts } });
      if (e.affectsConfiguration('admit.mode') || e.affectsConfiguration('admit.effects')) {
        const st = await this.request<AdmitState>(Methods.setMode, { mode: opts.mode, effects: opts.effects });
        if (st && typeof st === 'object' && 'mode' in st) this.setState(st);
      }
    } catch (err) {
      this.log(`sending the changed settings: ${String(err)}`);
    }
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) d.dispose();
    this.stateEmitter.dispose();
    this.decideEmitter.dispose();
  }
}
