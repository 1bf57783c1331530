// Read-only documents under the admit: scheme (tape queries, the two sides of the
// policy review's diff). A content provider keeps them read-only and out of the file system.
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

  /** put keeps text as a read-only document named name (its extension picks the language) and returns its address. */
  put(name: string, text: string): vscode.Uri {
    const p = `/${++this.seq}/${name}`;
    this.docs.set(p, text);
    // Keep memory bounded: only the 50 newest documents keep their text.
    if (this.docs.size > 50) this.docs.delete(this.docs.keys().next().value as string);
    return vscode.Uri.from({ scheme, path: p });
  }

  /** open shows text as a read-only document named name. */
  async open(name: string, text: string): Promise<vscode.TextEditor> {
    const doc = await vscode.workspace.openTextDocument(this.put(name, text));
    return vscode.window.showTextDocument(doc, { preview: false });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
