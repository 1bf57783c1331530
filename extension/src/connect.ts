// "admit: Connect Agents" and "admit: Disconnect Agent": the agents installed for this
// user (admit/agents), the exact change to one's user-level hook configuration as a
// diff (two read-only plain-text documents per file), written only on the person's yes
// in a modal whose default writes nothing (admit/connectAgent with the shown change's
// sum; a file changed since is shown again), and undone the same way
// (admit/disconnectAgent with the undo's sum). The hooks name the binary the
// extension installed outside every workspace (install.ts).
import * as vscode from 'vscode';
import { AgentBook, agentName, agentPicks, changeDialog, diffTitle, docName, isChangedSinceShown, type AgentPick, type Direction } from './agents';
import type { DocumentStore } from './documents';
import type { InstallResult } from './install';
import { Methods, type AgentChangeResult, type AgentsResult, type AgentStatus } from './protocol';
import { invalidParams, methodNotFound, missingMethod, rpcCode, rpcMessage } from './rpcError';
import { plain } from './text';

/** How often a change is shown again when its file changes under it, before giving up. */
const maxRounds = 5;

export interface ConnectHost {
  request<R>(method: string, params: unknown): Promise<R>;
  log(line: string): void;
  /** The installed binary (install.ts), once the install has run. */
  binary(): Promise<InstallResult>;
  /** Called after every survey and change, to redraw the tooltip and the view. */
  changed(): void;
}

export class AgentConnections {
  readonly book = new AgentBook();
  private surveying: Promise<AgentsResult | undefined> | undefined;

  constructor(private readonly host: ConnectHost, private readonly docs: DocumentStore) {}

  /** binaryPath is the installed binary, or why there is none (said to the person by the caller). */
  private async binaryPath(): Promise<{ path: string } | { error: string }> {
    const b = await this.host.binary();
    if (b.kind === 'failed') return { error: `the extension could not install its admit binary for the hooks to run (${b.error})` };
    return { path: b.path };
  }

  /** survey reads the agents (admit/agents) for the tooltip and the view; errors are logged, never shown. */
  survey(): Promise<AgentsResult | undefined> {
    this.surveying ??= (async () => {
      try {
        const b = await this.binaryPath();
        const r = await this.host.request<AgentsResult>(Methods.agents, 'path' in b ? { binary: b.path } : {});
        this.book.setSurvey(r);
        this.host.changed();
        return r;
      } catch (e) {
        this.host.log(`admit/agents: ${rpcMessage(e)}`);
        return undefined;
      } finally {
        this.surveying = undefined;
      }
    })();
    return this.surveying;
  }

  private failed(method: string, e: unknown): void {
    if (rpcCode(e) === methodNotFound) void vscode.window.showWarningMessage(plain(`admit: ${missingMethod(method, 'the agents')}`));
    else void vscode.window.showErrorMessage(plain(`admit: ${method} failed: ${rpcMessage(e)}`));
  }

  /** run is both commands: pick an agent, show its change, write it on a yes. */
  async run(direction: Direction): Promise<void> {
    const b = await this.binaryPath();
    if ('error' in b) {
      void vscode.window.showErrorMessage(plain(`admit: ${b.error}.`));
      return;
    }
    let host: string | undefined;
    for (let round = 0; round < maxRounds; round++) {
      let r: AgentsResult;
      try {
        r = await this.host.request<AgentsResult>(Methods.agents, { binary: b.path });
      } catch (e) {
        this.failed(Methods.agents, e);
        return;
      }
      this.book.setSurvey(r);
      this.host.changed();
      if (r.binaryProblem) {
        void vscode.window.showErrorMessage(plain(`admit: the agents' hooks cannot run ${r.binary || b.path}: ${r.binaryProblem}.`));
        return;
      }
      const picks = agentPicks(r, direction);
      let pick: AgentPick | undefined;
      if (host === undefined) {
        if (!picks.length) {
          void vscode.window.showInformationMessage(direction === 'disconnect' ? 'admit: no agent has admit\'s hook in its configuration.' : 'admit: admit knows no agent host for this system.');
          return;
        }
        pick = await vscode.window.showQuickPick(picks, {
          title: direction === 'connect' ? 'admit: connect an agent' : 'admit: disconnect an agent',
          placeHolder: direction === 'connect' ? 'Pick an agent: its hook configuration gets admit\'s entry (the change is shown first)' : 'Pick an agent: admit\'s entries come out of its configuration (the change is shown first)',
          matchOnDescription: true,
          matchOnDetail: true,
        });
        if (!pick) return;
        host = pick.host;
      } else {
        pick = picks.find((p) => p.host === host);
      }
      const status = r.agents.find((a) => a.host === host);
      if (!pick || !status) {
        void vscode.window.showWarningMessage(plain(`admit: ${host} is no longer listed by the server.`));
        return;
      }
      if (!pick.change) {
        const why = status.problem ? `: ${status.problem}` : '';
        void vscode.window.showInformationMessage(plain(`admit: ${agentName(status)} is ${status.state === 'connected' ? 'connected already, as admit writes it' : status.state}${why}. Nothing to write.`));
        return;
      }
      const yes = await this.ask(status, pick.change, b.path, direction);
      if (!yes) {
        this.host.log(`kept ${host}'s configuration as it is`);
        return;
      }
      const method = direction === 'connect' ? Methods.connectAgent : Methods.disconnectAgent;
      try {
        const res = await this.host.request<AgentChangeResult>(method, { host, binary: b.path, sum: pick.change.sum });
        if (res?.status) this.book.update(res.status);
        this.host.changed();
        this.host.log(`${direction}ed ${host}: wrote ${(res?.written ?? []).join(', ') || 'nothing'}, removed ${(res?.removed ?? []).join(', ') || 'nothing'}, backups ${(res?.backups ?? []).join(', ') || 'none'}`);
        void vscode.window.showInformationMessage(done(status, res, b.path, direction));
        return;
      } catch (e) {
        if (rpcCode(e) === invalidParams && isChangedSinceShown(rpcMessage(e))) {
          void vscode.window.showWarningMessage(plain(`admit: ${agentName(status)}'s configuration changed since it was shown, so nothing was written. Here is the change again.`));
          continue;
        }
        this.failed(method, e);
        return;
      }
    }
    void vscode.window.showErrorMessage('admit: the configuration kept changing while it was shown, so nothing was written. Try again once it is still.');
  }

  /** ask opens the diff of every file, then the modal question; only the second button writes. */
  private async ask(a: AgentStatus, change: NonNullable<AgentPick['change']>, binary: string, direction: Direction): Promise<boolean> {
    for (const f of change.files) {
      const left = this.docs.put(docName(f.path, 'now'), typeof f.before === 'string' ? f.before : '');
      const right = this.docs.put(docName(f.path, 'after'), typeof f.after === 'string' ? f.after : '');
      await vscode.commands.executeCommand('vscode.diff', left, right, diffTitle(a, f.path, direction), { preview: false });
    }
    const d = changeDialog(a, change, binary, direction);
    const choice = await vscode.window.showWarningMessage(d.message, { modal: true, detail: d.detail }, ...d.buttons);
    return choice === d.buttons[1];
  }
}

/** done is the notice after a change was written. Plain text, one line. */
function done(a: AgentStatus, res: AgentChangeResult | undefined, binary: string, direction: Direction): string {
  const name = agentName(a);
  if (direction === 'disconnect') return plain(`admit: ${name} is disconnected: admit's entries are out of its configuration.`);
  const notes = (res?.status?.notes ?? a.notes ?? []).filter((n): n is string => typeof n === 'string');
  const backups = res?.backups?.length ? ` Your file was copied to ${res.backups.join(', ')} first.` : '';
  return plain(`admit: ${name} is connected: its hook runs ${binary}.${backups} Undo it with "admit: Disconnect Agent".${notes.length ? ` ${notes.join(' ')}` : ''}`);
}
