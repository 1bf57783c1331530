// Approval prompts: the server's admit/approve requests, shown one after another, each
// answered exactly once. Pure: the queue, what a prompt shows, and its HTML; the VS Code
// side (the webview panel, the modal dialog) is prompts.ts.
//
// Many questions a day: a prompt shows the whole command (or the paths), the agent and
// session, why it asks, the confinement a run gets and, when the server offers one, the
// exact rule "always allow" writes. Deny is the first answer everywhere, so the default
// action (Enter on a modal dialog, the first focusable link) never allows. A dismissal
// (Esc, closing the prompt) answers deny at once. A question that ends without an answer
// (its deadline, admit/approvalCancelled, the server going away) is settled as deny and
// its prompt taken down where the UI allows it; a click that arrives after that is told
// so (onLate) instead of being dropped in silence.
import { dl, page } from './html';
import type { ApprovalAnswer, ApproveParams, CallField, OfferedRule } from './protocol';
import { commandHref, htmlBlock, htmlText, oneLine, plain } from './text';

/** One answer a prompt offers. */
export interface AnswerChoice {
  answer: ApprovalAnswer;
  /** The button's words. */
  label: string;
  /** What the answer does, in a sentence. */
  detail: string;
}

/** What a prompt shows, from the server's params. Every string is raw: each renderer escapes it for its surface. */
export interface ApprovalView {
  id: string;
  tool: string;
  /** What is asked: the whole command line, else the summary, else the tool. */
  what: { label: 'Command' | 'Call'; text: string };
  targets: string[];
  agent?: string;
  session?: string;
  cwd?: string;
  reason?: string;
  confinement?: string;
  rule?: OfferedRule;
  /** Why no rule is offered. */
  noRule?: string;
  /** What is approved, shown: a write's content, an edit's diff, what the protected file can do, a structured call's arguments. */
  content?: string;
  diff?: string;
  protects?: string;
  /** The whole file as the call leaves it and the path it is for: the change one click away in the diff editor. */
  proposed?: { text: string; path: string };
  fields: CallField[];
  timeoutMs?: number;
  /** How many more questions wait after this one. */
  waiting: number;
  /** Deny first. */
  answers: AnswerChoice[];
}

/** At most this many targets are listed; the rest are counted. */
export const maxTargets = 50;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** validRule is the offered rule when it is one the extension can show and the server can write: a non-empty match, decision allow, a known scope. */
export function validRule(r: unknown): OfferedRule | undefined {
  const o = r as Partial<OfferedRule> | null | undefined;
  if (!o || typeof o !== 'object' || typeof o.match !== 'string' || !o.match.trim()) return undefined;
  if (o.decision !== 'allow' || (o.scope !== 'workspace' && o.scope !== 'user')) return undefined;
  const out: OfferedRule = { match: o.match, decision: 'allow', scope: o.scope };
  if (typeof o.covers === 'string' && o.covers) out.covers = o.covers;
  if (o.effects && typeof o.effects === 'object') {
    const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
    out.effects = { reads: list(o.effects.reads), code: list(o.effects.code), hosts: list(o.effects.hosts), sends: list(o.effects.sends) };
  }
  return out;
}

/** validFields are the call's arguments the prompt can show: name and value strings. */
export function validFields(f: unknown): CallField[] {
  if (!Array.isArray(f)) return [];
  return f.filter((x): x is CallField => !!x && typeof x === 'object' && typeof (x as CallField).name === 'string' && typeof (x as CallField).value === 'string').slice(0, 50);
}

/** alwaysLabel is the "always allow" button: it names the rule's match (cut to fit a button; the detail has it whole). */
export function alwaysLabel(r: OfferedRule): string {
  const m = oneLine(r.match);
  const shown = m.length > 60 ? `${m.slice(0, 57)}…` : m;
  return `Always allow \`${shown}\` in ${r.scope === 'user' ? 'every workspace' : 'this workspace'}`;
}

/** ruleSentence says exactly which rule "always allow" writes. */
export function ruleSentence(r: OfferedRule): string {
  if (r.covers) {
    return `writes the rule ${JSON.stringify(r.match)} to your rules (kept outside the repository): it allows ${r.covers}, without asking; a call that does more (another host, a file sent, code loaded by an option) is still asked, and chained commands are still judged one by one.`;
  }
  return `writes the rule {match: ${JSON.stringify(r.match)}, decision: "allow", scope: "${r.scope}"} to your rules (kept outside the repository), so calls that start with these words are allowed without asking; chained commands are still judged one by one.`;
}

/** answersFor lists the answers a question offers, Deny first; "always allow" only with a rule the server offered. */
export function answersFor(p: ApproveParams): AnswerChoice[] {
  const out: AnswerChoice[] = [
    { answer: 'deny', label: 'Deny', detail: 'Refuse the call; the agent is told a person refused it.' },
    { answer: 'allow-once', label: 'Allow once', detail: 'Allow this call, this time only.' },
    { answer: 'allow-session', label: 'Allow for this session', detail: 'Allow this call and the same call again in this session, until it ends, without asking.' },
  ];
  const r = validRule(p.rule);
  if (r) out.push({ answer: 'allow-always', label: alwaysLabel(r), detail: `Allow it, and ${ruleSentence(r)}` });
  return out;
}

/** approvalView reads the server's params into what a prompt shows. */
export function approvalView(p: ApproveParams, waiting = 0): ApprovalView {
  const command = str(p.command);
  const summary = str(p.summary);
  const tool = str(p.tool) ?? '(no tool)';
  const targets = Array.isArray(p.targets) ? p.targets.filter((t): t is string => typeof t === 'string') : [];
  const session = str(p.session);
  return {
    id: String(p.id ?? ''),
    tool,
    // A call whose arguments come as fields is named by its tool: the fields show them readably, not a summary of raw JSON.
    what: command ? { label: 'Command', text: command } : { label: 'Call', text: validFields(p.fields).length ? tool : (summary ?? tool) },
    targets,
    agent: str(p.agent),
    session: session && session !== 'default' ? session : undefined,
    cwd: str(p.cwd),
    reason: str(p.reason),
    confinement: str(p.confinement),
    rule: validRule(p.rule),
    noRule: str(p.noRule),
    content: typeof p.content === 'string' ? p.content : undefined,
    diff: str(p.diff),
    protects: str(p.protects),
    proposed: typeof p.proposed === 'string' && str(p.proposedFor) ? { text: p.proposed, path: p.proposedFor as string } : undefined,
    fields: validFields(p.fields),
    timeoutMs: typeof p.timeoutMs === 'number' && p.timeoutMs > 0 ? p.timeoutMs : undefined,
    waiting,
    answers: answersFor(p),
  };
}

/** headline is the prompt's one-line question: who asks for what. Plain text. */
export function headline(v: ApprovalView): string {
  const who = v.agent ? plain(v.agent) : 'An agent';
  const from = v.session ? ` (session ${plain(v.session)})` : '';
  const what = v.what.label === 'Command' ? `to run a command with ${plain(v.tool)}` : v.targets.length ? `to use ${plain(v.tool)} on ${v.targets.length === 1 ? 'a path' : `${v.targets.length} paths`}` : `to call ${plain(v.tool)}`;
  return `${who}${from} asks ${what}`;
}

function seconds(ms: number): string {
  return ms >= 10_000 || ms % 1000 === 0 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** modalPrompt is the modal dialog's text and buttons: every text on plain lines, Deny first (the dialog's default button). */
export function modalPrompt(v: ApprovalView): { message: string; detail: string; buttons: string[] } {
  const lines: string[] = [`${v.what.label}: ${plain(v.what.text)}`];
  if (v.targets.length) lines.push(`Paths: ${v.targets.slice(0, maxTargets).map(plain).join(', ')}${v.targets.length > maxTargets ? `, and ${v.targets.length - maxTargets} more` : ''}`);
  if (v.cwd) lines.push(`In: ${plain(v.cwd)}`);
  if (v.reason) lines.push(`Why admit asks: ${plain(v.reason)}`);
  if (v.confinement) lines.push(`Runs confined by: ${plain(v.confinement)}`);
  if (v.protects) lines.push(`What this file can do: ${plain(v.protects)}`);
  for (const f of v.fields) lines.push(`${plain(f.name)}: ${plain(f.value.length > 300 ? `${f.value.slice(0, 297)}...` : f.value)}`);
  if (v.diff) lines.push(`The change:\n${v.diff.length > 2000 ? `${v.diff.slice(0, 2000)}\n...` : v.diff}`);
  else if (v.content !== undefined) lines.push(`The content:\n${v.content.length > 2000 ? `${v.content.slice(0, 2000)}\n...` : v.content}`);
  if (v.rule) lines.push(`"${plain(alwaysLabel(v.rule))}" ${plain(ruleSentence(v.rule))}`);
  else if (v.noRule) lines.push(`No "always allow": ${plain(v.noRule)}`);
  if (v.timeoutMs) lines.push(`No answer in ${seconds(v.timeoutMs)} refuses it.`);
  if (v.waiting) lines.push(`${v.waiting} more question${v.waiting === 1 ? '' : 's'} waiting.`);
  return { message: `admit: ${headline(v)}`, detail: lines.join('\n'), buttons: v.answers.map((a) => plain(a.label)) };
}

/** The longest text of one item (the command, an argument) a notification shows; a longer one is left to the panel. */
export const toastItemMax = 200;

/** toastText is agent text for a progress notification: plain (no link), and `$(` split, since a progress notification drops `$(name)` as an icon. */
export function toastText(s: string): string {
  return plain(s).replace(/\$\(/g, '$ (');
}

/**
 * toastPrompt is the question as a notification, shown at once while the panel draws
 * (a new webview panel takes a second to appear; a notification a few milliseconds).
 * The answers are links to admit.answerApproval with the panel's token, and come first:
 * VS Code reads `[label](command:...)` anywhere in the message, so a `[` in the agent's
 * text before them could take one of them into a label of its own. Every text after
 * them is toastText, so none of it is a link. The notification allows only when it
 * shows the whole of what is approved (the command or arguments uncut, no content, diff
 * or protected file); otherwise it offers Deny and the panel, which shows all of it.
 * "Always allow" is on the panel, which says what its rule covers. The notification's
 * one button, Cancel, denies (prompts.ts).
 */
export function toastPrompt(v: ApprovalView, token: number): { title: string; message: string; whole: boolean } {
  const items: string[] = [];
  const cut = (s: string) => (s.length > toastItemMax ? `${s.slice(0, toastItemMax - 3)}...` : s);
  let whole = v.content === undefined && !v.diff && !v.protects && !v.proposed && v.fields.length <= 3 && v.targets.length <= 3;
  if (v.what.label === 'Command' || !v.fields.length) {
    items.push(`${v.what.label}: ${cut(v.what.text)}`);
    whole &&= v.what.text.length <= toastItemMax;
  }
  for (const f of v.fields.slice(0, 3)) {
    items.push(`${f.name}: ${cut(f.value)}`);
    whole &&= f.value.length <= toastItemMax;
  }
  if (v.targets.length) items.push(`Paths: ${v.targets.slice(0, 3).map(cut).join(', ')}${v.targets.length > 3 ? `, and ${v.targets.length - 3} more` : ''}`);
  const link = (label: string, answer: ApprovalAnswer) => `[${label}](command:${answerCommand}?${encodeURIComponent(JSON.stringify([token, answer]))})`;
  const rest = [headline(v), ...items].map(toastText).join(' · ');
  const build = (all: boolean) => {
    const answers = v.answers.filter((a) => a.answer === 'deny' || (all && a.answer !== 'allow-always')).map((a) => link(a.label, a.answer));
    answers.push(`[Show the whole question](command:${showCommand})`);
    return `${answers.join(' · ')} (Cancel denies${all ? '' : '; to allow it, see all of it on the panel'}) — ${rest}`;
  };
  let message = build(whole);
  if (whole && message.length > toastMax) {
    // VS Code cuts a longer message: what it shows would not be all that is allowed.
    whole = false;
    message = build(false);
  }
  if (message.length > toastMax) message = `${message.slice(0, toastMax - 3)}...`;
  return { title: 'admit', message, whole };
}

/** The longest message a notification shows whole (VS Code cuts at 1000 characters, the title and ": " before it). */
const toastMax = 980;

/** answerForLabel maps the clicked button (undefined: dismissed) to the answer; anything unknown is deny. */
export function answerForLabel(v: ApprovalView, choice: string | undefined): ApprovalAnswer {
  const hit = v.answers.find((a) => plain(a.label) === choice);
  return hit ? hit.answer : 'deny';
}

/** The command the prompt's links run, with [token, answer]. */
export const answerCommand = 'admit.answerApproval';

/** The command that brings the pending question's panel forward (the status bar's, the notification's "Show the whole question"). */
export const showCommand = 'admit.showApproval';

/** The command the prompt's "open in the diff editor" link runs, with [token]. */
export const diffCommand = 'admit.showApprovalDiff';

/**
 * The prompt page's one script, the extension's own: it swaps in the body of the next
 * question (or of the idle page) the extension posts, so a kept panel shows a question
 * in a few milliseconds instead of drawing a new page, and says when it has (shown,
 * after the next frame is drawn). It handles no click: the answers stay command links.
 * The body it is given is HTML the extension built with text.ts's escapes; the page's
 * policy runs no other script, inline handlers included.
 */
export const promptScript = `(function () {
  const api = acquireVsCodeApi();
  window.addEventListener('message', (e) => {
    const m = e.data;
    if (!m || m.type !== 'show' || typeof m.html !== 'string') return;
    document.body.innerHTML = m.html;
    document.title = String(m.title || '');
    window.scrollTo(0, 0);
    requestAnimationFrame(() => api.postMessage({ type: 'shown', seq: m.seq }));
  });
  api.postMessage({ type: 'ready' });
})();`;

/**
 * approvalHtml is the prompt as a webview page: the question, every detail, and one
 * link per answer, Deny first. The links run admit.answerApproval with the prompt's
 * token (a number the extension chose), so a click on a stale page is recognised.
 */
export function approvalHtml(v: ApprovalView, token: number, nonce: string): string {
  return page(`admit: ${headline(v)}`, approvalBody(v, token), nonce, promptScript);
}

/** approvalBody is the body of the prompt's page (approvalHtml), what a kept panel is posted. */
export function approvalBody(v: ApprovalView, token: number): string {
  const code = (s: string) => `<code>${htmlText(s)}</code>`;
  const targets = v.targets.length
    ? `<ul>${v.targets.slice(0, maxTargets).map((t) => `<li>${code(t)}</li>`).join('')}</ul>${v.targets.length > maxTargets ? `<p class="muted">and ${v.targets.length - maxTargets} more</p>` : ''}`
    : '';
  const body = [
    `<h1>${htmlText(headline(v))}</h1>`,
    `<h2>${v.what.label === 'Command' ? 'The whole command' : 'The call'}</h2>`,
    `<pre id="what">${htmlBlock(v.what.text)}</pre>`,
    targets && `<h2>Paths</h2>${targets}`,
    v.protects ? `<h2>What this file can do</h2><p id="protects" class="warn">${htmlText(v.protects)}</p>` : '',
    v.fields.length ? `<h2>Arguments</h2>${dl(v.fields.map((f) => [f.name, `<pre class="field">${htmlBlock(f.value)}</pre>`]))}` : '',
    v.proposed ? `<p><a id="open-diff" href="${commandHref(diffCommand, [token])}">Open the change in the diff editor</a> <span class="muted">(the file now, beside the file as this call leaves it)</span></p>` : '',
    v.diff ? `<h2>The change</h2><pre id="diff">${diffHtml(v.diff)}</pre>` : v.content !== undefined ? `<h2>The content it writes</h2><pre id="content">${htmlBlock(v.content)}</pre>` : '',
    dl([
      ['Tool', code(v.tool)],
      ['Agent', v.agent && htmlText(v.agent)],
      ['Session', v.session && code(v.session)],
      ['Folder', v.cwd && code(v.cwd)],
      ['Why admit asks', v.reason && htmlText(v.reason)],
      ['Runs confined by', v.confinement && htmlText(v.confinement)],
      ['Deadline', v.timeoutMs ? `no answer in ${seconds(v.timeoutMs)} refuses it` : undefined],
    ]),
    v.rule
      ? `<p class="note">Always allow ${htmlText(ruleSentence(v.rule))}</p><pre id="rule">${htmlBlock(v.rule.match)}</pre>`
      : v.noRule
        ? `<p class="note" id="no-rule">No "always allow": ${htmlText(v.noRule)}</p>`
        : '',
    `<div class="actions">${v.answers
      .map((a) => `<a class="button${a.answer === 'deny' ? ' deny' : ''}" id="answer-${a.answer}" href="${commandHref(answerCommand, [token, a.answer])}" title="${htmlText(a.detail)}">${htmlText(a.label)}</a>`)
      .join('')}</div>`,
    `<p class="muted">Closing this tab, or Escape, denies at once.${v.waiting ? ` ${v.waiting} more question${v.waiting === 1 ? '' : 's'} waiting.` : ''}</p>`,
  ].filter(Boolean);
  return body.join('\n');
}

/** idleBody is the panel between questions: it offers no answer, so nothing on it looks live. */
export const idleBody = `<h1>No question</h1><p class="muted">Your answer was sent. The next question admit asks shows here; this panel closes by itself.</p>`;

/** idleHtml is the idle panel as a whole page. */
export function idleHtml(nonce: string): string {
  return page('admit: no question', idleBody, nonce, promptScript);
}

/** diffHtml marks a unified diff's added and removed lines. */
function diffHtml(diff: string): string {
  let body = false; // past a hunk's @@ line: every + and - line is the change, even one that reads like a header
  return diff
    .split('\n')
    .map((l) => {
      if (l.startsWith('@@')) body = true;
      else if (body && l.startsWith('+')) return `<ins>${htmlText(l)}</ins>`;
      else if (body && l.startsWith('-')) return `<del>${htmlText(l)}</del>`;
      return htmlText(l);
    })
    .join('\n');
}

/** Why a question was settled. */
export type SettleReason = 'answered' | 'cancelled' | 'deadline' | 'stopped';

/** lateNotice tells the person that a click came after the question ended, and what came of the call. Plain text. */
export function lateNotice(v: ApprovalView, how: SettleReason, answered?: ApprovalAnswer): string {
  const why: Record<SettleReason, string> = {
    answered: `it was already answered (${answered ?? 'deny'})`,
    cancelled: 'it was withdrawn (the agent cancelled, or its session ended)',
    deadline: 'its deadline passed, so the call was refused',
    stopped: 'the admit server stopped, so the call was refused',
  };
  return `admit: your answer to "${plain(v.what.text.length > 80 ? `${v.what.text.slice(0, 77)}...` : v.what.text)}" came too late: ${why[how]}. It changed nothing.`;
}

/** A shown prompt: its answer (undefined: dismissed), and how to take it down. */
export interface Shown {
  answer: PromiseLike<ApprovalAnswer | undefined>;
  /** close says the question is over (answered here, or settled elsewhere): the prompt is taken down, where the UI can. */
  close(how: SettleReason): void;
  /** update says how many questions wait behind this one now, where the UI can show it. */
  update?(waiting: number): void;
}

/** A Prompter shows one question. */
export type Prompter = (v: ApprovalView, modal: boolean) => Shown;

/** Timers is setTimeout/clearTimeout, injectable for tests. */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}
const realTimers: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as NodeJS.Timeout) };

interface Pending {
  params: ApproveParams;
  view?: ApprovalView;
  settled: boolean;
  how?: SettleReason;
  answer?: ApprovalAnswer;
  resolve: (a: ApprovalAnswer) => void;
  /** When the server's deadline falls (ms since the epoch), if it gave one. */
  deadlineAt?: number;
  settledSignal: Promise<void>;
  fireSettled: () => void;
  timer?: unknown;
}

export interface ApprovalOptions {
  prompt: Prompter;
  modal: () => boolean;
  timers?: Timers;
  /** The clock, for telling a withdrawal at the deadline from an earlier one. */
  now?: () => number;
  /** Called whenever a question is settled, for logging. */
  onSettled?: (id: string, answer: ApprovalAnswer, how: SettleReason, params: ApproveParams) => void;
  /** Called when an answer arrives after its question was settled otherwise. */
  onLate?: (v: ApprovalView, how: SettleReason, answered?: ApprovalAnswer) => void;
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
  private current: Shown | undefined;
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
        p.deadlineAt = this.now() + params.timeoutMs;
        p.timer = this.timers.set(() => this.settle(p, 'deny', 'deadline'), params.timeoutMs);
      }
      this.queue.push(p);
      this.waitingChanged();
      void this.pump();
    });
  }

  /** The questions waiting behind the one shown. */
  private waiting(): number {
    return this.queue.filter((q) => !q.settled).length;
  }

  private waitingChanged(): void {
    this.current?.update?.(this.waiting());
  }

  /**
   * cancel settles the question with this id as "deny" (admit/approvalCancelled). The
   * server withdraws a question at its deadline too; a withdrawal within a second of
   * the deadline is told as the deadline.
   */
  cancel(id: string): boolean {
    const p = this.byId.get(id);
    if (!p) return false;
    this.settle(p, 'deny', p.deadlineAt !== undefined && this.now() >= p.deadlineAt - 1000 ? 'deadline' : 'cancelled');
    return true;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** cancelAll settles every question as "deny": the server stopped or restarts. */
  cancelAll(): void {
    for (const p of [...this.byId.values()]) this.settle(p, 'deny', 'stopped');
  }

  private settle(p: Pending, answer: ApprovalAnswer, how: SettleReason): void {
    if (p.settled) return;
    p.settled = true;
    p.how = how;
    p.answer = answer;
    if (p.timer !== undefined) this.timers.clear(p.timer);
    if (this.byId.get(p.params.id) === p) this.byId.delete(p.params.id);
    p.resolve(answer);
    p.fireSettled();
    this.opts.onSettled?.(p.params.id, answer, how, p.params);
    if (this.queue.includes(p)) this.waitingChanged();
  }

  private async pump(): Promise<void> {
    if (this.showing) return;
    this.showing = true;
    try {
      for (;;) {
        const p = this.queue.shift();
        if (!p) return;
        if (p.settled) continue;
        const view = approvalView(p.params, this.waiting());
        p.view = view;
        let shown: Shown;
        try {
          shown = this.opts.prompt(view, this.opts.modal());
        } catch {
          this.settle(p, 'deny', 'answered'); // a prompt that cannot be shown is a dismissal
          continue;
        }
        this.current = shown;
        const clicked = Promise.resolve(shown.answer).then(
          (a) => ({ a }),
          () => ({ a: undefined as ApprovalAnswer | undefined }),
        );
        // A click that comes after the question was settled otherwise is told to the person.
        void clicked.then(({ a }) => {
          if (p.settled && p.how !== 'answered' && a !== undefined) this.opts.onLate?.(view, p.how ?? 'cancelled', p.answer);
        });
        // Whichever comes first: the click (or dismissal), or the question being settled elsewhere.
        const r = await Promise.race([clicked, p.settledSignal.then(() => undefined)]);
        if (r !== undefined) this.settle(p, allowedAnswer(view, r.a), 'answered');
        // The question is over: the prompt goes (or shows the next question, see prompts.ts).
        this.current = undefined;
        shown.close(p.how ?? 'cancelled');
      }
    } finally {
      this.showing = false;
    }
  }
}

/** allowedAnswer keeps an answer the question offered; a dismissal, or an answer it did not offer ("always" with no rule), is deny. */
export function allowedAnswer(v: ApprovalView, a: ApprovalAnswer | undefined): ApprovalAnswer {
  return a !== undefined && v.answers.some((c) => c.answer === a) ? a : 'deny';
}
