// A small stand-in for the `vscode` module: enough for the unit tests of status,
// decisions and approvals. esbuild puts it where `vscode` is imported.

export enum StatusBarAlignment { Left = 1, Right = 2 }
export enum TreeItemCollapsibleState { None = 0, Collapsed = 1, Expanded = 2 }
export enum ConfigurationTarget { Global = 1, Workspace = 2, WorkspaceFolder = 3 }

export class MarkdownString {
  isTrusted?: boolean | { readonly enabledCommands: readonly string[] };
  supportHtml?: boolean;
  constructor(public value = '') {}
}
export class ThemeColor {
  constructor(public id: string) {}
}
export class ThemeIcon {
  constructor(public id: string, public color?: ThemeColor) {}
}
export class TreeItem {
  id?: string;
  description?: string;
  iconPath?: ThemeIcon;
  tooltip?: MarkdownString | string;
  contextValue?: string;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(public label: string, public collapsibleState?: TreeItemCollapsibleState) {}
}

type Listener<T> = (e: T) => unknown;
export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export interface MockStatusBarItem {
  id: string;
  alignment: StatusBarAlignment;
  priority?: number;
  name?: string;
  text: string;
  tooltip?: MarkdownString | string;
  command?: string;
  backgroundColor?: ThemeColor;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}


export enum ViewColumn { Active = -1, Beside = -2, One = 1, Two = 2 }

/** A webview panel the tests look into: its options, its html, and whether it is open. */
export interface MockWebviewPanel {
  viewType: string;
  title: string;
  options: Record<string, unknown>;
  showOptions: unknown;
  /** The page: html as drawn (a posted body swapped in, as the page's script does), how often it was drawn whole, what was posted. */
  webview: { html: string; drawn: number; posted: unknown[]; postMessage(m: unknown): Promise<boolean>; onDidReceiveMessage(l: (m: unknown) => void): { dispose(): void } };
  viewColumn?: number;
  disposed: boolean;
  revealed: { column?: number; preserveFocus?: boolean }[];
  reveal(column?: number, preserveFocus?: boolean): void;
  onDidDispose(l: () => void): { dispose(): void };
  dispose(): void;
}

/** A progress notification: what it was shown with, what it reported, whether its task ended (it closed). */
export interface MockProgress {
  options: { location?: unknown; title?: string; cancellable?: boolean };
  messages: string[];
  closed: boolean;
  /** cancel is a click on its Cancel button. */
  cancel(): void;
}

export const created: { statusItems: MockStatusBarItem[]; panels: MockWebviewPanel[]; messages: { kind: string; message: string; items: unknown[] }[]; progress: MockProgress[] } = {
  statusItems: [], panels: [], messages: [], progress: [],
};

export enum ProgressLocation { SourceControl = 1, Window = 10, Notification = 15 }

/** The answers the mocked dialogs and pick lists give; tests set them. */
export const answers: {
  warning?: (message: string, items: unknown[]) => unknown;
  quickPick?: (items: unknown[]) => unknown;
} = {};

export class CancellationTokenSource {
  private listeners: (() => void)[] = [];
  private cancelled = false;
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: (l: () => void) => {
      if (this.cancelled) {
        l();
        return { dispose() {} };
      }
      this.listeners.push(l);
      return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
    },
  };
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.token.isCancellationRequested = true;
    for (const l of [...this.listeners]) l();
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class LanguageModelTextPart {
  constructor(public value: string) {}
}
export class LanguageModelToolResult {
  constructor(public content: unknown[]) {}
}

/** The tools registered with lm.registerTool, by name. */
export const tools = new Map<string, { invoke: Function; prepareInvocation?: Function }>();
export const lm = {
  registerTool(name: string, tool: { invoke: Function; prepareInvocation?: Function }) {
    tools.set(name, tool);
    return { dispose: () => tools.delete(name) };
  },
};

/** The settings the mocked workspace.getConfiguration inspects: full key → layers. */
export const settings = new Map<string, Record<string, unknown>>();
export const executed: { command: string; args: unknown[] }[] = [];
export const commands = {
  executeCommand(command: string, ...args: unknown[]) {
    executed.push({ command, args });
    return Promise.resolve(undefined);
  },
};
export const workspace = {
  /** The real file system, as the extension sees its files. */
  fs: {
    stat: async (u: { fsPath: string }) => {
      const st = await (await import('node:fs/promises')).stat(u.fsPath);
      return { type: st.isDirectory() ? 2 : 1, size: st.size, ctime: st.ctimeMs, mtime: st.mtimeMs };
    },
  },
  getConfiguration(section: string) {
    return {
      inspect: (key: string) => settings.get(`${section}.${key}`),
      get: (key: string) => {
        const l = settings.get(`${section}.${key}`);
        return l?.workspaceFolderValue ?? l?.workspaceValue ?? l?.globalValue ?? l?.defaultValue;
      },
    };
  },
};
export const Uri = { file: (p: string) => ({ scheme: 'file', fsPath: p, path: p }), from: (c: { scheme: string; path: string }) => ({ ...c, fsPath: c.path, toString: () => `${c.scheme}:${c.path}` }) };

export const window = {
  createWebviewPanel(viewType: string, title: string, showOptions: unknown, options: Record<string, unknown>): MockWebviewPanel {
    const listeners: (() => void)[] = [];
    const fromPage: ((m: unknown) => void)[] = [];
    let html = '';
    // The page: drawn whole, it says it is ready (its script is up, when it has one); a posted body replaces its body.
    const webview: MockWebviewPanel['webview'] = {
      get html() { return html; },
      set html(h: string) {
        html = h;
        webview.drawn++;
        if (options.enableScripts) setTimeout(() => { if (html === h && !panel.disposed) for (const l of fromPage) l({ type: 'ready' }); }, 0);
      },
      drawn: 0,
      posted: [],
      postMessage(m: unknown) {
        if (panel.disposed) return Promise.resolve(false);
        webview.posted.push(m);
        const msg = m as { type?: string; html?: string; seq?: number };
        if (msg.type === 'show' && typeof msg.html === 'string') {
          html = html.replace(/<body>[\s\S]*<\/body>/, () => `<body>${msg.html}</body>`);
          setTimeout(() => { for (const l of fromPage) l({ type: 'shown', seq: msg.seq }); }, 0);
        }
        return Promise.resolve(true);
      },
      onDidReceiveMessage(l) { fromPage.push(l); return { dispose() {} }; },
    };
    const panel: MockWebviewPanel = {
      viewType, title, options, showOptions, webview, viewColumn: 2, disposed: false, revealed: [],
      reveal(column, preserveFocus) { panel.revealed.push({ column, preserveFocus }); },
      onDidDispose(l) { listeners.push(l); return { dispose() {} }; },
      dispose() {
        if (panel.disposed) return;
        panel.disposed = true;
        for (const l of listeners) l();
      },
    };
    created.panels.push(panel);
    return panel;
  },
  withProgress<T>(options: MockProgress['options'], task: (p: { report(v: { message?: string }): void }, token: { onCancellationRequested(l: () => void): { dispose(): void } }) => PromiseLike<T>): Promise<T> {
    const cancelled: (() => void)[] = [];
    const p: MockProgress = { options, messages: [], closed: false, cancel: () => { for (const l of cancelled) l(); } };
    created.progress.push(p);
    const token = { onCancellationRequested: (l: () => void) => { cancelled.push(l); return { dispose() {} }; } };
    return Promise.resolve(task({ report: (v) => { if (v.message !== undefined) p.messages.push(v.message); } }, token)).finally(() => { p.closed = true; });
  },
  showInformationMessage(message: string, ...items: unknown[]) {
    created.messages.push({ kind: 'info', message, items });
    return Promise.resolve(undefined);
  },
  showWarningMessage(message: string, ...items: unknown[]) {
    created.messages.push({ kind: 'warning', message, items });
    return Promise.resolve(answers.warning?.(message, items));
  },
  showErrorMessage(message: string, ...items: unknown[]) {
    created.messages.push({ kind: 'error', message, items });
    return Promise.resolve(undefined);
  },
  showQuickPick(items: unknown[]) {
    return Promise.resolve(answers.quickPick?.(items));
  },
  createStatusBarItem(id: string, alignment: StatusBarAlignment, priority?: number): MockStatusBarItem {
    const item: MockStatusBarItem = {
      id, alignment, priority, text: '', visible: false,
      show() { item.visible = true; },
      hide() { item.visible = false; },
      dispose() { item.visible = false; },
    };
    created.statusItems.push(item);
    return item;
  },
};
