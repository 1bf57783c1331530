// The approval prompt on screen: a webview panel, or a modal dialog when the person
// chose admit.approvals.modal. The queue and what a prompt shows are in approvals.ts.
//
// Why a webview panel and not a message with buttons: VS Code cannot close such a
// notification from code, so a question that timed out or was withdrawn would leave a
// live-looking toast whose buttons do nothing; Do Not Disturb hides toasts altogether;
// and a toast cuts a long command off. A Quick Pick can be closed, but it shows one line
// per answer, so the whole command does not fit, and it takes the keyboard from the
// editor: keys meant for the code would pick an answer. A webview panel can be closed
// from code the moment a question ends, shows the whole command wrapped, opens beside
// the editor without taking focus (preserveFocus), and closing its tab (or Escape inside
// it) is a dismissal, which denies at once. The page runs one script, the extension's
// own, which swaps in the next question's body when the kept panel is posted it (a new
// page takes half a second or more to draw in a browser's editor; a post a few
// milliseconds). Its answers are links to admit.answerApproval, the only command the
// panel enables, carrying a token the extension chose, so a click on a page that is no
// longer current is recognised and told.
//
// While a new panel draws, the question shows at once as a progress notification
// (approvals.ts toastPrompt), whose answers are links to admit.answerApproval with the
// same token, and whose one button, Cancel, denies: either surface answers the question
// once, and both go. Unlike a message with buttons, a progress notification is closed by
// the extension the moment its question ends, and the person can neither clear it nor
// let it time out; hiding it answers nothing (the question stays open on the panel and the status bar, until it is
// answered there, dismissed there, or its deadline refuses it).
import { randomBytes } from 'crypto';
import * as path from 'path';
import * as vscode from 'vscode';
import { answerCommand, answerForLabel, diffCommand, approvalBody, approvalHtml, idleBody, idleHtml, modalPrompt, toastPrompt, type ApprovalView, type Prompter, type Shown } from './approvals';
import type { DocumentStore } from './documents';
import type { ApprovalAnswer } from './protocol';

/** nonce is a fresh value for a page's Content-Security-Policy. */
export function nonce(): string {
  return randomBytes(18).toString('base64');
}

/**
 * openProposedDiff shows a question's change in VS Code's diff editor: the file as it is
 * now (or an empty document, for a new file) beside the file as the call leaves it, a
 * read-only document of the admit: scheme that is never written anywhere.
 */
export async function openProposedDiff(docs: DocumentStore, v: ApprovalView, besidePrompt?: vscode.ViewColumn): Promise<void> {
  if (!v.proposed) return;
  const p = path.isAbsolute(v.proposed.path) ? v.proposed.path : v.cwd ? path.join(v.cwd, v.proposed.path) : undefined;
  const name = path.basename(v.proposed.path) || 'file';
  let before: vscode.Uri | undefined = p ? vscode.Uri.file(p) : undefined;
  if (before) {
    try {
      await vscode.workspace.fs.stat(before);
    } catch {
      before = undefined; // a new file
    }
  }
  const after = docs.put(name, v.proposed.text);
  // In another group than the prompt's, so the question stays in sight beside its change.
  const viewColumn = besidePrompt === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
  await vscode.commands.executeCommand('vscode.diff', before ?? docs.put(name, ''), after, `${name}: now ↔ as the call leaves it (admit, not written)`, { preview: true, viewColumn });
}

const answers = new Set<ApprovalAnswer>(['allow-once', 'allow-session', 'allow-always', 'deny']);

/**
 * How long the panel stays after a question answered by a click, showing no answer, so
 * that the next question is drawn into it: a new webview panel takes half a second or
 * more to appear, a question posted to the kept one's page a few milliseconds. Escape,
 * closing the tab, a withdrawal or a deadline take it down at once.
 */
export const lingerMs = 60_000;

/** The panel's view type: the `activeWebviewPanelId` of the Escape keybinding. */
export const approvalViewType = 'admit.approval';

/** What the page's script posts back: its script is up (ready), or a posted body is on screen (shown). */
interface PageMessage {
  type?: unknown;
  seq?: unknown;
}

/** ApprovalPrompts shows questions in one webview panel (kept, and reused from question to question), or in modal dialogs. */
export class ApprovalPrompts implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  /** The panel's page has run its script: the next body is posted to it, not drawn as a new page. */
  private pageReady = false;
  /** The last thing drawn, as a whole page: what a page that lost a post is drawn again with. */
  private last: { seq: number; html: () => string } | undefined;
  /** When the question on the panel came (ms since the epoch), for the log's time to appear; 0 once logged. */
  private cameAt = 0;
  private posts = 0;
  private current: { token: number; resolve: (a: ApprovalAnswer | undefined) => void } | undefined;
  private seq = 0;
  /** The resolvers of recent pages, by token: a click on an older page still reaches its question (and is told it came late). */
  private readonly tokens = new Map<number, (a: ApprovalAnswer | undefined) => void>();
  /** The views of recent pages, by token: what their "open in the diff editor" link shows. */
  private readonly views = new Map<number, ApprovalView>();
  private closeTimer: NodeJS.Timeout | undefined;
  private closingOnPurpose = false;
  /** The question shown was ended by Escape: its panel goes at once. */
  private escaped = false;
  /** The notifications up, each ended (closed) when its question ends. */
  private readonly toasts = new Set<() => void>();

  constructor(
    private readonly log: (line: string) => void,
    /** Opens a question's change in the diff editor. */
    private readonly openDiff: (v: ApprovalView, promptColumn?: vscode.ViewColumn) => PromiseLike<unknown> = () => Promise.resolve(),
    private readonly now: () => number = Date.now,
  ) {}

  readonly prompter: Prompter = (v, modal) => (modal ? this.modal(v) : this.webview(v));

  /** A modal dialog: Deny is its first button, so Enter denies. It cannot be closed from code; a late click is told (ApprovalQueue's onLate). */
  private modal(v: ApprovalView): Shown {
    const m = modalPrompt(v);
    const answer = vscode.window
      .showWarningMessage(m.message, { modal: true, detail: m.detail }, ...m.buttons)
      .then((choice) => (choice === undefined ? undefined : answerForLabel(v, choice)));
    return { answer, close: () => {} };
  }

  /** openPanel makes the one panel, beside the editor, without taking focus. */
  private openPanel(): vscode.WebviewPanel {
    const panel = vscode.window.createWebviewPanel(approvalViewType, 'admit: a question', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      // The page's own script only swaps in the next body (approvals.ts promptScript).
      enableScripts: true,
      enableCommandUris: [answerCommand, diffCommand],
      enableFindWidget: false,
      localResourceRoots: [],
      // A kept panel behind another tab still takes the next question's post.
      retainContextWhenHidden: true,
    });
    this.pageReady = false;
    panel.webview.onDidReceiveMessage((m: PageMessage) => {
      if (this.panel !== panel || !m || typeof m !== 'object') return;
      if (m.type === 'ready') {
        this.pageReady = true;
        this.onScreen('drawn as a new page');
      } else if (m.type === 'shown' && m.seq === this.last?.seq) {
        this.onScreen('posted to the kept page');
      }
    });
    panel.onDidDispose(() => {
      if (this.panel === panel) {
        this.panel = undefined;
        this.pageReady = false;
      }
      if (this.closingOnPurpose) return;
      // The person closed the tab: a dismissal, which denies at once.
      const c = this.current;
      this.current = undefined;
      c?.resolve(undefined);
    });
    return panel;
  }

  /** onScreen logs how long the question on the panel took to appear, once per question. */
  private onScreen(how: string): void {
    if (!this.cameAt || !this.current) return;
    this.log(`question on screen ${this.now() - this.cameAt} ms after it came (${how})`);
    this.cameAt = 0;
  }

  /** draw puts a body on the panel: posted to its page when that page is up, else as a new page. */
  private draw(title: string, body: string, html: () => string): void {
    const panel = this.panel;
    if (!panel) return;
    panel.title = title;
    const last = { seq: ++this.posts, html };
    this.last = last;
    if (!this.pageReady) {
      panel.webview.html = html();
      return;
    }
    void Promise.resolve(panel.webview.postMessage({ type: 'show', seq: last.seq, title, html: body })).then(
      (ok) => {
        if (ok || this.panel !== panel || this.last !== last) return;
        this.pageReady = false; // the page did not take it: draw it whole
        panel.webview.html = last.html();
      },
      () => {},
    );
  }

  /** toast shows the question as a progress notification, at once; the function it returns closes it. */
  private toast(v: ApprovalView, token: number): () => void {
    const t = toastPrompt(v, token);
    let end!: () => void;
    const ended = new Promise<void>((r) => (end = r));
    const close = () => {
      this.toasts.delete(close);
      end();
    };
    this.toasts.add(close);
    Promise.resolve(
      // Cancellable: a notification with a button is drawn whole (one without is cut to a line); its Cancel is a click that denies.
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: t.title, cancellable: true }, (progress, cancel) => {
        progress.report({ message: t.message });
        cancel.onCancellationRequested(() => {
          if (this.toasts.has(close)) this.answer(token, 'deny');
        });
        return ended;
      }),
    ).then(undefined, (e: unknown) => this.log(`the question's notification did not show: ${e instanceof Error ? e.message : String(e)}`));
    return close;
  }

  private webview(v: ApprovalView): Shown {
    const token = ++this.seq;
    let resolve!: (a: ApprovalAnswer | undefined) => void;
    const answer = new Promise<ApprovalAnswer | undefined>((r) => (resolve = r));
    this.tokens.set(token, resolve);
    for (const k of this.tokens.keys()) if (this.tokens.size > 20) this.tokens.delete(k);
    this.views.set(token, v);
    for (const k of this.views.keys()) if (this.views.size > 20) this.views.delete(k);
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.closeTimer = undefined;
    this.cameAt = this.now();
    this.current = { token, resolve };
    // A page not yet up takes a second to draw: the notification shows the question meanwhile.
    const endToast = this.panel && this.pageReady ? undefined : this.toast(v, token);
    if (!this.panel) {
      this.panel = this.openPanel();
    } else {
      this.panel.reveal(this.panel.viewColumn, true);
    }
    const draw = (waiting: number) => {
      const view = { ...v, waiting };
      this.draw(waiting ? `admit: a question (${waiting} more waiting)` : 'admit: a question', approvalBody(view, token), () => approvalHtml(view, token, nonce()));
    };
    draw(v.waiting);
    return {
      answer,
      update: (waiting) => {
        if (this.current?.token === token) draw(waiting);
      },
      close: (how) => {
        endToast?.();
        // Another question's page replaced this one: it is that one's panel now.
        if (this.current && this.current.token !== token) return;
        const clicked = how === 'answered' && !this.escaped;
        this.escaped = false;
        this.current = undefined;
        if (clicked && this.panel) {
          // Answered by a click: the panel stays a while, with no answer on it, for the next question.
          this.draw('admit: no question', idleBody, () => idleHtml(nonce()));
          this.closeTimer = setTimeout(() => this.closePanel(), lingerMs);
          return;
        }
        // The next question, if one waits, reuses the panel; otherwise it goes.
        this.closeTimer = setTimeout(() => this.closePanel(), 150);
      },
    };
  }

  private closePanel(): void {
    this.closeTimer = undefined;
    if (this.current || !this.panel) return;
    this.closingOnPurpose = true;
    try {
      this.panel.dispose();
    } finally {
      this.closingOnPurpose = false;
      this.panel = undefined;
    }
  }

  /** answer is a click on one of the page's links (admit.answerApproval [token, answer]). */
  answer(token: unknown, answer: unknown): void {
    if (typeof token !== 'number' || typeof answer !== 'string' || !answers.has(answer as ApprovalAnswer)) {
      this.log(`ignored an answer that no prompt of admit made: ${JSON.stringify([token, answer]).slice(0, 200)}`);
      return;
    }
    const r = this.tokens.get(token);
    this.tokens.delete(token);
    if (!r) {
      void vscode.window.showInformationMessage('admit: that question had already ended; your answer changed nothing.');
      return;
    }
    r(answer as ApprovalAnswer);
  }

  /** showDiff is a click on a page's "open in the diff editor" (admit.showApprovalDiff [token]): the change, the question stays open. */
  showDiff(token: unknown): void {
    const v = typeof token === 'number' ? this.views.get(token) : undefined;
    if (!v?.proposed) {
      this.log(`ignored a diff link that no prompt of admit made: ${JSON.stringify(token)?.slice(0, 200)}`);
      return;
    }
    Promise.resolve(this.openDiff(v, this.panel?.viewColumn)).then(undefined, (e: unknown) => this.log(`the diff editor did not open: ${e instanceof Error ? e.message : String(e)}`));
  }

  /** dismiss is Escape in the prompt: deny at once. */
  dismiss(): void {
    const c = this.current;
    if (!c) {
      if (this.panel && !this.closeTimer) return;
      this.closePanel(); // Escape on the idle panel takes it down
      return;
    }
    this.escaped = true;
    this.tokens.delete(c.token);
    c.resolve(undefined);
  }

  /** reveal brings the pending question forward and focuses it (the status bar's click); false when none is shown in a panel. */
  reveal(): boolean {
    if (!this.panel || !this.current) return false;
    this.panel.reveal(this.panel.viewColumn, false);
    return true;
  }

  dispose(): void {
    if (this.closeTimer) clearTimeout(this.closeTimer);
    for (const end of [...this.toasts]) end();
    const c = this.current;
    this.current = undefined;
    c?.resolve(undefined);
    this.closingOnPurpose = true;
    this.panel?.dispose();
    this.panel = undefined;
  }
}
