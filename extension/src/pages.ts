// Read-only pages in webview panels (a decision, the campaign report): one panel per
// kind, reused, running no script (html.ts), with only the named commands of the
// extension's own links enabled.
import * as vscode from 'vscode';

export class PagePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  constructor(
    private readonly viewType: string,
    private readonly commands: readonly string[],
  ) {}

  /** show draws html in the panel (made when needed, beside the active editor if asked) and brings it forward. */
  show(title: string, html: string, preserveFocus = false, beside = false): void {
    if (!this.panel) {
      const viewColumn = beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
      this.panel = vscode.window.createWebviewPanel(this.viewType, title, { viewColumn, preserveFocus }, {
        enableScripts: false,
        enableCommandUris: this.commands.length ? [...this.commands] : false,
        enableFindWidget: true,
        localResourceRoots: [],
      });
      const p = this.panel;
      p.onDidDispose(() => {
        if (this.panel === p) this.panel = undefined;
      });
    } else {
      this.panel.reveal(this.panel.viewColumn, preserveFocus);
    }
    this.panel.title = title;
    this.panel.webview.html = html;
  }

  /** update redraws the panel if it is open. */
  update(html: string): void {
    if (this.panel) this.panel.webview.html = html;
  }

  get open(): boolean {
    return this.panel !== undefined;
  }

  dispose(): void {
    this.panel?.dispose();
    this.panel = undefined;
  }
}
