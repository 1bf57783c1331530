// Approval prompts: the server's admit/approve requests, shown one after another.
//
// VS Code cannot close a notification from code. So when a question stops standing
// (admit/approvalCancelled, its deadline, $/cancelRequest, or the server going away),
// the pending answer is settled as "deny" at once and the queue moves on; a click on
// the stale toast later finds the question settled and is ignored.
import type { ApprovalAnswer, ApproveParams } from './protocol';
import { plain } from './text';

export const buttons = {
  allowOnce: 'Allow once',
  allowSession: 'Allow for this session',
  deny: 'Deny',
} as const;

/** answerFor maps the clicked button (undefined: dismissed) to the protocol's answer. */
export function answerFor(choice: string | undefined): ApprovalAnswer {
  switch (choice) {
    case buttons.allowOnce:
      return 'allow-once';
    case buttons.allowSession:
      return 'allow-session';
    default:
      return 'deny';
  }
}

/**
 * approvalMessage is the prompt's text: who asks, the summary and the reason. All three
 * come from the agent's call, so each is plain text on one line, with no link syntax
 * VS Code would render in a notification.
 */
export function approvalMessage(p: ApproveParams): string {
  const who = p.session && p.session !== 'default' ? ` (session ${plain(p.session)})` : '';
  const what = p.summary && p.summary.length > 0 ? p.summary : p.tool;
  const reason = p.reason ? ` ${plain(p.reason)}` : '';
  return `admit${who}: ${plain(String(what ?? ''))}.${reason}`;
}

/** A Prompter shows one question and resolves with the clicked button, undefined when dismissed. */
export type Prompter = (message: string, modal: boolean, buttons: string[]) => PromiseLike<string | undefined>;

/** Timers is setTimeout/clearTimeout, injectable for tests. */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}
const realTimers: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as NodeJS.Timeout) };

/** Why a question was settled without a click. */
export type SettleReason = 'answered' | 'cancelled' | 'deadline' | 'stopped';

interface Pending {
  params: ApproveParams;
  settled: boolean;
  how?: SettleReason;
  resolve: (a: ApprovalAnswer) => void;
  settledSignal: Promise<void>;
  fireSettled: () => void;
  timer?: unknown;
}

export interface ApprovalOptions {
  prompt: Prompter;
  modal: () => boolean;
  timers?: Timers;
  /** Called whenever a question is settled, for logging. */
  onSettled?: (id: string, answer: ApprovalAnswer, how: SettleReason) => void;
}

/**
 * ApprovalQueue holds the questions the server asked and shows them one at a time.
 * Every question is answered exactly once: by a click, or by "deny" when dismissed,
 * cancelled, past its deadline, or when the server stopped.
 */
export class ApprovalQueue {
  private readonly queue: Pending[] = [];
  private readonly byId = new Map<string, Pending>();
  private showing = false;
  private readonly timers: Timers;

  constructor(private readonly opts: ApprovalOptions) {
    this.timers = opts.timers ?? realTimers;
  }

  /** The number of questions not yet settled. */
  get pending(): number {
    return this.byId.size;
  }

  /** ask enqueues a question and resolves with its answer. */
  ask(params: ApproveParams): Promise<ApprovalAnswer> {
    return new Promise<ApprovalAnswer>((resolve) => {
      let fireSettled!: () => void;
      const settledSignal = new Promise<void>((r) => (fireSettled = r));
      const p: Pending = { params, settled: false, resolve, settledSignal, fireSettled };
      const old = this.byId.get(params.id);
      if (old) this.settle(old, 'deny', 'cancelled'); // a repeated id replaces the old question
      this.byId.set(params.id, p);
      if (params.timeoutMs !== undefined && params.timeoutMs > 0) {
        p.timer = this.timers.set(() => this.settle(p, 'deny', 'deadline'), params.timeoutMs);
      }
      this.queue.push(p);
      void this.pump();
    });
  }

  /** cancel settles the question with this id as "deny" (admit/approvalCancelled). */
  cancel(id: string): boolean {
    const p = this.byId.get(id);
    if (!p) return false;
    this.settle(p, 'deny', 'cancelled');
    return true;
  }

  /** cancelAll settles every question as "deny": the server stopped or restarts. */
  cancelAll(): void {
    for (const p of [...this.byId.values()]) this.settle(p, 'deny', 'stopped');
  }

  private settle(p: Pending, answer: ApprovalAnswer, how: SettleReason): void {
    if (p.settled) return;
    p.settled = true;
    p.how = how;
    if (p.timer !== undefined) this.timers.clear(p.timer);
    if (this.byId.get(p.params.id) === p) this.byId.delete(p.params.id);
    p.resolve(answer);
    p.fireSettled();
    this.opts.onSettled?.(p.params.id, answer, how);
  }

  private async pump(): Promise<void> {
    if (this.showing) return;
    this.showing = true;
    try {
      for (;;) {
        const p = this.queue.shift();
        if (!p) return;
        if (p.settled) continue;
        const shown = Promise.resolve(
          this.opts.prompt(approvalMessage(p.params), this.opts.modal(), [buttons.allowOnce, buttons.allowSession, buttons.deny]),
        ).then(
          (choice) => ({ choice }),
          () => ({ choice: undefined as string | undefined }),
        );
        // Whichever comes first: the click (or dismissal), or the question being settled
        // elsewhere. A click after that finds p.settled and changes nothing.
        const r = await Promise.race([shown, p.settledSignal.then(() => undefined)]);
        if (r !== undefined) this.settle(p, answerFor(r.choice), 'answered');
      }
    } finally {
      this.showing = false;
    }
  }
}
