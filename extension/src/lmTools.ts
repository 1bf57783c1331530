// admit's tools for the editor's agents: read, search, edit, write and run as VS Code
// language-model tools (contributes.languageModelTools; vscode.lm.registerTool), so
// Copilot agent mode (or any chat participant) can choose them. Each call goes through
// the server's door (admit/read, admit/edit, admit/write, admit/run; search is
// admit/run of a grep argv), in the editor's default session, under the workspace's
// policy; a refusal returns the verdict's toolError.
//
// When admit would ask a person about a call, the ask is the tool's own confirmation
// (prepareInvocation's confirmationMessages), and the person is asked once:
//   1. prepareInvocation judges the call first with admit/check. With a server that
//      takes `dryRun: true` nothing is asked or taped; with one that does not, the
//      check's own question (admit/approve) is caught here, its words kept, and the
//      check withdrawn ($/cancelRequest): the tape shows it as asked and withdrawn.
//   2. On an ask, the confirmation shows the whole command or path and admit's reason.
//   3. invoke runs only after the person confirmed (VS Code calls it then, and never
//      when they cancelled). The acting call raises the same question again; it is
//      answered "allow-once" from that confirmation: once, for the question with the
//      same tool, command and paths, while that call is in flight. Any other question
//      goes to admit's own prompt.
// VS Code can confirm a tool without showing anything (chat.tools.autoApprove, an
// "always allow" of the tool, newer versions' bypass modes). Such a confirmation is
// not a person's answer: when the settings that do it are on, or invoke follows the
// confirmation faster than a person can read it, the question goes to admit's own
// prompt instead. Fail closed: with no server, every tool returns a refusal.
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { unavailableVerdict } from './api';
import type { ApprovalAnswer, ApproveParams } from './protocol';
import { Methods } from './protocol';
import { invalidParams, rpcCode, rpcMessage } from './rpcError';
import {
  askOf, confirmation, gateCall, invocationMessage, questionKey, refusalText, refused, resultText, toolNames,
  type Ask, type GateCall, type GateResult, type ToolName,
} from './toolCalls';

/** The agent the extension names for calls its tools make (the decisions view, the tooltip). */
export const toolsAgent = 'VS Code tools';

/** probeAgent is the agent a check names while it is a probe: the question it raises is recognised by it. */
export function probeAgent(nonce: string): string {
  return `${toolsAgent} probe ${nonce}`;
}

/** isProbeAgent says whether an agent name is a probe's (not an agent's own call). */
export function isProbeAgent(agent: unknown): boolean {
  return typeof agent === 'string' && /^VS Code tools probe [0-9a-f]{12}$/.test(agent);
}

/** A confirmation shown faster than this before invoke was not a person's answer. */
export const humanFloorMs = 400;

/** The settings layers VS Code's inspect gives. */
export interface Layers {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * autoConfirmedBy says where VS Code is set to confirm tools without asking (so that a
 * confirmation is not the person's answer): chat.tools.autoApprove (1.100 reads a
 * workspace's value of it), chat.tools.global.autoApprove (newer), either true or
 * naming one of admit's tools, and a default permission level that bypasses approvals.
 */
export function autoConfirmedBy(read: (key: string) => Layers | undefined, tools: readonly string[] = toolNames): string | undefined {
  const where: [keyof Layers, string][] = [
    ['workspaceFolderValue', "a folder's settings"],
    ['workspaceValue', "the workspace's settings"],
    ['globalValue', 'your user settings'],
    ['defaultValue', 'the default'],
  ];
  for (const key of ['chat.tools.autoApprove', 'chat.tools.global.autoApprove']) {
    const l = read(key);
    if (!l) continue;
    for (const [layer, words] of where) {
      const v = l[layer];
      if (v === true || (v && typeof v === 'object' && tools.some((t) => (v as Record<string, unknown>)[t] === true))) return `${key} in ${words}`;
    }
  }
  const perm = read('chat.permissions.default');
  for (const [layer, words] of where) {
    const v = perm?.[layer];
    if (typeof v === 'string' && /bypass|auto|yolo|assist/i.test(v)) return `chat.permissions.default ${JSON.stringify(v)} in ${words}`;
  }
  return undefined;
}

/** What prepareInvocation learnt about a call. */
type Judged = { kind: 'ask'; ask: Ask } | { kind: 'go' } | { kind: 'refused'; verdict: GateResult };

interface Prepared {
  key: string;
  at: number;
}

interface Probe {
  seen: (p: ApproveParams) => void;
  /** Settles when the probe's check has its answer (after a withdrawal too). */
  finished: Promise<void>;
}

/** What LmTools needs of the extension. */
export interface LmToolsHost {
  request<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R>;
  isUnavailable(e: unknown): boolean;
  log(line: string): void;
  /** Tells the views that a decision was the editor's tools'. */
  annotate(id: string): void;
  /** The workspace folder relative paths are read against (for the hashes' keys). */
  folder(): string | undefined;
  now?(): number;
}

/** How long a judged call waits for its invoke; past it the judgment is forgotten. */
const preparedTtlMs = 10 * 60_000;

export class LmTools implements vscode.Disposable {
  /** Whether the server takes admit/check's dryRun (undefined: not known yet). */
  private dryRun: boolean | undefined;
  private readonly probes = new Map<string, Probe>();
  /** Calls judged "ask" and confirmed, by tool and input, waiting for their invoke. */
  private readonly prepared = new Map<string, Prepared>();
  /** Calls refused by their probe, whose refusal invoke returns without asking again. */
  private readonly refusals = new Map<string, { verdict: GateResult; at: number }>();
  /** The one-time answers in force: the question's key, while its call is in flight. */
  private readonly armed: { key: string; used: boolean }[] = [];
  private readonly hashes = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly host: LmToolsHost) {}

  private now(): number {
    return (this.host.now ?? Date.now)();
  }

  /** register registers the tools where this VS Code has the API (1.95+), and says so when it has not. */
  register(): boolean {
    const lm = (vscode as { lm?: Partial<typeof vscode.lm> }).lm;
    if (typeof lm?.registerTool !== 'function' || typeof vscode.LanguageModelToolResult !== 'function') {
      this.host.log('this VS Code has no language-model tools API (1.95+): admit\'s tools are not offered to its agents');
      return false;
    }
    for (const name of toolNames) {
      this.disposables.push(
        lm.registerTool<unknown>(name, {
          prepareInvocation: (o, token) => this.prepare(name, o.input, token),
          invoke: (o, token) => this.invoke(name, o.input, token),
        }),
      );
    }
    return true;
  }

  /** reset forgets what this server could do, and the judgments it made: a new server starts. */
  reset(): void {
    this.dryRun = undefined;
    this.hashes.clear(); // a new server's session has observed nothing
    this.prepared.clear();
    this.refusals.clear();
  }

  /** autoConfirmed says where VS Code would confirm the tools without asking, if it would. */
  private autoConfirmed(): string | undefined {
    return autoConfirmedBy((key) => {
      const i = key.lastIndexOf('.');
      return vscode.workspace.getConfiguration(key.slice(0, i)).inspect(key.slice(i + 1)) as Layers | undefined;
    });
  }

  private hashOf = (p: string): string | undefined => this.hashes.get(this.pathKey(p));

  private pathKey(p: string): string {
    const folder = this.host.folder();
    return folder && !/^([A-Za-z]:)?[\\/]/.test(p) ? `${folder}/${p}` : p;
  }

  private remember(call: GateCall, r: GateResult): void {
    if (!call.path || typeof r.hash !== 'string' || !r.hash) return;
    if (this.hashes.size > 2000) this.hashes.clear();
    this.hashes.set(this.pathKey(call.path), r.hash);
    const t = Array.isArray(r.targets) && r.targets.length === 1 ? r.targets[0] : undefined;
    if (typeof t === 'string') this.hashes.set(t, r.hash);
  }

  private static inputKey(tool: ToolName, input: unknown): string {
    return `${tool}:${JSON.stringify(input)}`;
  }

  /**
   * interceptor answers the server's questions that belong to the tools: a probe's
   * (held until the probe is withdrawn, then "deny", which the server ignores as late),
   * and the acting call's after a confirmation (allow-once, once). Anything else is
   * not ours: undefined, and admit's own prompt asks.
   */
  interceptor = (p: ApproveParams, token: vscode.CancellationToken): Promise<ApprovalAnswer> | undefined => {
    const probe = typeof p.agent === 'string' ? this.probes.get(p.agent) : undefined;
    if (probe) {
      probe.seen(p);
      return new Promise<ApprovalAnswer>((resolve) => {
        token.onCancellationRequested(() => resolve('deny'));
        void probe.finished.then(() => resolve('deny'));
      });
    }
    if (p.agent || (p.session && p.session !== 'default')) return undefined;
    const key = questionKey(p);
    const hit = this.armed.find((a) => !a.used && a.key === key);
    if (!hit) return undefined;
    hit.used = true;
    this.host.log(`approval ${p.id}: allow-once, from the confirmation the person just gave in VS Code for this call`);
    return Promise.resolve('allow-once');
  };

  /** judge tells whether admit would ask about the call, without acting on it. */
  private async judge(call: GateCall, token: vscode.CancellationToken): Promise<Judged> {
    if (this.dryRun !== false) {
      try {
        const v = await this.host.request<GateResult & { wouldAsk?: boolean }>(Methods.check, { ...call.check, dryRun: true }, token);
        this.dryRun = true;
        if (v?.wouldAsk === true) return { kind: 'ask', ask: askOf({ ...v, tool: call.check.tool } as Partial<ApproveParams>, call.check.command ?? call.check.argv?.join(' ')) };
        return { kind: 'go' }; // the acting call is judged (and taped) for real
      } catch (e) {
        if (!(rpcCode(e) === invalidParams && /^dryRun\b/.test(rpcMessage(e)))) throw e;
        if (this.dryRun === undefined) this.host.log('this admit server has no dry-run check: the tools judge a call beforehand with a check that is withdrawn when it asks');
        this.dryRun = false;
      }
    }
    const nonce = randomBytes(6).toString('hex');
    const agent = probeAgent(nonce);
    const cts = new vscode.CancellationTokenSource();
    const cancelled = token.onCancellationRequested(() => cts.cancel());
    let asked!: (p: ApproveParams) => void;
    const question = new Promise<ApproveParams>((r) => (asked = r));
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    this.probes.set(agent, { seen: (p) => asked(p), finished });
    const check = this.host.request<GateResult>(Methods.check, { ...call.check, context: { agent } }, cts.token);
    const settled = check.then(
      (v) => ({ v }),
      (e: unknown) => ({ e }),
    );
    void settled.then(() => {
      finish();
      this.probes.delete(agent);
      cancelled.dispose();
      cts.dispose();
    });
    const first = await Promise.race([settled, question.then((p) => ({ p }))]);
    if ('p' in first) {
      cts.cancel(); // withdraw the check's question: the confirmation asks instead
      return { kind: 'ask', ask: askOf(first.p) };
    }
    if ('e' in first) throw first.e;
    const v = first.v;
    if (refused(v)) return { kind: 'refused', verdict: v };
    return { kind: 'go' };
  }

  private async prepare(tool: ToolName, input: unknown, token: vscode.CancellationToken): Promise<vscode.PreparedToolInvocation | undefined> {
    const call = gateCall(tool, input, this.hashOf);
    if ('error' in call) return undefined; // invoke says what is wrong
    const message = new vscode.MarkdownString(invocationMessage(call));
    message.isTrusted = false;
    message.supportHtml = false;
    const auto = this.autoConfirmed();
    if (auto) {
      this.host.log(`${auto} lets VS Code confirm tools without asking, so admit asks in its own prompt when it must`);
      return { invocationMessage: message };
    }
    let j: Judged;
    try {
      j = await this.judge(call, token);
    } catch (e) {
      // Not known beforehand: the acting call is judged, and asks in admit's own prompt if it must.
      this.host.log(`${tool}: the check before the call failed (${rpcMessage(e)}); admit asks in its own prompt if it must`);
      return { invocationMessage: message };
    }
    const key = LmTools.inputKey(tool, input);
    if (j.kind === 'refused') {
      this.refusals.set(key, { verdict: j.verdict, at: this.now() });
      return { invocationMessage: message };
    }
    if (j.kind !== 'ask') return { invocationMessage: message };
    const c = confirmation(call, j.ask);
    const md = new vscode.MarkdownString(c.message);
    md.isTrusted = false;
    md.supportHtml = false;
    this.prepared.set(key, { key: questionKey(j.ask), at: this.now() });
    this.sweep();
    return { invocationMessage: message, confirmationMessages: { title: c.title, message: md } };
  }

  private sweep(): void {
    const old = this.now() - preparedTtlMs;
    for (const [k, p] of this.prepared) if (p.at < old) this.prepared.delete(k);
    for (const [k, r] of this.refusals) if (r.at < old) this.refusals.delete(k);
  }

  private async invoke(tool: ToolName, input: unknown, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const text = (s: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s)]);
    const call = gateCall(tool, input, this.hashOf);
    if ('error' in call) return text(`${call.error}. Nothing was done; the tool's inputSchema lists what it takes.`);
    const key = LmTools.inputKey(tool, input);
    const refusal = this.refusals.get(key);
    if (refusal) {
      this.refusals.delete(key);
      if (typeof refusal.verdict.id === 'string') this.host.annotate(refusal.verdict.id);
      return text(refusalText(refusal.verdict));
    }
    const prep = this.prepared.get(key);
    this.prepared.delete(key);
    let arm: { key: string; used: boolean } | undefined;
    if (prep) {
      const waited = this.now() - prep.at;
      const auto = this.autoConfirmed();
      if (auto || waited < humanFloorMs) {
        this.host.log(`${tool}: confirmed ${auto ? `by ${auto}` : `${waited} ms after it was shown, faster than a person reads it`}; admit asks in its own prompt`);
      } else {
        arm = { key: prep.key, used: false };
        this.armed.push(arm);
      }
    }
    let r: GateResult;
    try {
      r = await this.host.request<GateResult>(call.method, call.params, token);
    } catch (e) {
      if (this.host.isUnavailable(e)) return text(refusalText(unavailableVerdict(call.method, e)));
      return text(`${tool}: admit could not decide this call, so nothing was done: ${rpcMessage(e)}`);
    } finally {
      if (arm) this.armed.splice(this.armed.indexOf(arm), 1);
    }
    if (typeof r?.id === 'string' && r.id) this.host.annotate(r.id);
    if (r?.mode === 'off') return text("admit is off (mode off), so its tools act on nothing: nothing was done. Ask the person to turn admit on (admit: Select Mode and Effects), or use another tool.");
    if (refused(r)) return text(refusalText(r));
    this.remember(call, r);
    if (tool === 'admit_read' && typeof r.content !== 'string' && r.allowed) {
      const listed = listing(r);
      if (listed !== undefined) return text(listed);
    }
    return text(resultText(call, r));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }
}

/** listing lists a folder admit admitted reading (admit/read answers a folder with no content), as `admit mcp serve` does. */
function listing(r: GateResult): string | undefined {
  const t = Array.isArray(r.targets) && r.targets.length === 1 ? r.targets[0] : undefined;
  if (typeof t !== 'string') return undefined;
  try {
    if (!fs.statSync(t).isDirectory()) return undefined;
    const entries = fs.readdirSync(t, { withFileTypes: true });
    const lines = entries.slice(0, 1000).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    if (entries.length > 1000) lines.push(`... and ${entries.length - 1000} more entries: use admit_search, or read a subfolder`);
    return `${lines.join('\n') || '(empty folder)'}\n`;
  } catch {
    return undefined;
  }
}
