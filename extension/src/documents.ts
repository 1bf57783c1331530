// Read-only JSON and Markdown documents under the admit: scheme (decision details,
// tape queries). A content provider keeps them read-only and out of the file system.
import * as vscode from 'vscode';

export const scheme = 'admit';

export class DocumentStore implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private seq = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.path) ?? '';
  }

  /** open shows text as a read-only document named name (its extension picks the language). */
  async open(name: string, text: string): Promise<vscode.TextEditor> {
    const p = `/${++this.seq}/${name}`;
    this.docs.set(p, text);
    // Keep memory bounded: only the 50 newest documents keep their text.
    if (this.docs.size > 50) this.docs.delete(this.docs.keys().next().value as string);
    const uri = vscode.Uri.from({ scheme, path: p });
    const doc = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(doc, { preview: false });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
