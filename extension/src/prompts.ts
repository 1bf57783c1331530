// The approval prompt on screen: a webview panel, or a modal dialog when the person
// chose admit.approvals.modal. The queue and what a prompt shows are in approvals.ts.
//
// Why a webview panel and not a notification: VS Code cannot close a notification from
// code, so a question that timed out or was withdrawn would leave a live-looking toast
// whose buttons do nothing; Do Not Disturb hides toasts altogether; and a toast cuts a
// long command off. A Quick Pick can be closed, but it shows one line per answer, so the
// whole command does not fit, and it takes the keyboard from the editor: keys meant for
// the code would pick an answer. A progress notification can be closed but has one button.
// A webview panel can be closed from code the moment a question ends, shows the whole
// command wrapped, opens beside the editor without taking focus (preserveFocus), and
// closing its tab (or Escape inside it) is a dismissal, which denies at once. The page
// runs no script: its answers are links to admit.answerApproval, the only command the
// panel enables, carrying a token the extension chose, so a click on a page that is no
// longer current is recognised and told.
import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import { answerCommand, answerForLabel, approvalHtml, idleHtml, modalPrompt, type ApprovalView, type Prompter, type Shown } from './approvals';
import type { ApprovalAnswer } from './protocol';

/** nonce is a fresh value for a page's Content-Security-Policy. */
export function nonce(): string {
  return randomBytes(18).toString('base64');
}

const answers = new Set<ApprovalAnswer>(['allow-once', 'allow-session', 'allow-always', 'deny']);

/**
 * How long the panel stays after a question answered by a click, showing no answer, so
 * that the next question of a burst is drawn into it: a new webview panel takes a second
 * or more to appear, a page drawn into an open one a few milliseconds. Escape, closing
 * the tab, a withdrawal or a deadline take it down at once.
 */
export const lingerMs = 10_000;

/** The panel's view type: the `activeWebviewPanelId` of the Escape keybinding. */
export const approvalViewType = 'admit.approval';

/** ApprovalPrompts shows questions in one webview panel (reused from question to question), or in modal dialogs. */
export class ApprovalPrompts implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private current: { token: number; resolve: (a: ApprovalAnswer | undefined) => void } | undefined;
  private seq = 0;
  /** The resolvers of recent pages, by token: a click on an older page still reaches its question (and is told it came late). */
  private readonly tokens = new Map<number, (a: ApprovalAnswer | undefined) => void>();
  private closeTimer: NodeJS.Timeout | undefined;
  private closingOnPurpose = false;
  /** The question shown was ended by Escape: its panel goes at once. */
  private escaped = false;

  constructor(private readonly log: (line: string) => void) {}

  readonly prompter: Prompter = (v, modal) => (modal ? this.modal(v) : this.webview(v));

  /** A modal dialog: Deny is its first button, so Enter denies. It cannot be closed from code; a late click is told (ApprovalQueue's onLate). */
  private modal(v: ApprovalView): Shown {
    const m = modalPrompt(v);
    const answer = vscode.window
      .showWarningMessage(m.message, { modal: true, detail: m.detail }, ...m.buttons)
      .then((choice) => (choice === undefined ? undefined : answerForLabel(v, choice)));
    return { answer, close: () => {} };
  }

  private webview(v: ApprovalView): Shown {
    const token = ++this.seq;
    let resolve!: (a: ApprovalAnswer | undefined) => void;
    const answer = new Promise<ApprovalAnswer | undefined>((r) => (resolve = r));
    this.tokens.set(token, resolve);
    for (const k of this.tokens.keys()) if (this.tokens.size > 20) this.tokens.delete(k);
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.closeTimer = undefined;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(approvalViewType, 'admit: a question', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: false,
        enableCommandUris: [answerCommand],
        enableFindWidget: false,
        localResourceRoots: [],
        retainContextWhenHidden: false,
      });
      const panel = this.panel;
      panel.onDidDispose(() => {
        if (this.panel === panel) this.panel = undefined;
        if (this.closingOnPurpose) return;
        // The person closed the tab: a dismissal, which denies at once.
        const c = this.current;
        this.current = undefined;
        c?.resolve(undefined);
      });
    } else {
      this.panel.reveal(this.panel.viewColumn, true);
    }
    const draw = (waiting: number) => {
      if (!this.panel) return;
      this.panel.title = waiting ? `admit: a question (${waiting} more waiting)` : 'admit: a question';
      this.panel.webview.html = approvalHtml({ ...v, waiting }, token, nonce());
    };
    draw(v.waiting);
    this.current = { token, resolve };
    return {
      answer,
      update: (waiting) => {
        if (this.current?.token === token) draw(waiting);
      },
      close: (how) => {
        // Another question's page replaced this one: it is that one's panel now.
        if (this.current && this.current.token !== token) return;
        const clicked = how === 'answered' && !this.escaped;
        this.escaped = false;
        this.current = undefined;
        if (clicked && this.panel) {
          // Answered by a click: the panel stays a while, with no answer on it, for the next question.
          this.panel.title = 'admit: no question';
          this.panel.webview.html = idleHtml(nonce());
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
    const c = this.current;
    this.current = undefined;
    c?.resolve(undefined);
    this.closingOnPurpose = true;
    this.panel?.dispose();
    this.panel = undefined;
  }
}
