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

export const Uri = { file: (p: string) => ({ scheme: 'file', fsPath: p, path: p }) };

export enum ViewColumn { Active = -1, Beside = -2, One = 1, Two = 2 }

/** A webview panel the tests look into: its options, its html, and whether it is open. */
export interface MockWebviewPanel {
  viewType: string;
  title: string;
  options: Record<string, unknown>;
  showOptions: unknown;
  webview: { html: string };
  viewColumn?: number;
  disposed: boolean;
  revealed: { column?: number; preserveFocus?: boolean }[];
  reveal(column?: number, preserveFocus?: boolean): void;
  onDidDispose(l: () => void): { dispose(): void };
  dispose(): void;
}

export const created: { statusItems: MockStatusBarItem[]; panels: MockWebviewPanel[]; messages: { kind: string; message: string; items: unknown[] }[] } = {
  statusItems: [], panels: [], messages: [],
};

export const window = {
  createWebviewPanel(viewType: string, title: string, showOptions: unknown, options: Record<string, unknown>): MockWebviewPanel {
    const listeners: (() => void)[] = [];
    const panel: MockWebviewPanel = {
      viewType, title, options, showOptions, webview: { html: '' }, viewColumn: 2, disposed: false, revealed: [],
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
  showInformationMessage(message: string, ...items: unknown[]) {
    created.messages.push({ kind: 'info', message, items });
    return Promise.resolve(undefined);
  },
  showWarningMessage(message: string, ...items: unknown[]) {
    created.messages.push({ kind: 'warning', message, items });
    return Promise.resolve(undefined);
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
