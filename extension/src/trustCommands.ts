// admit: Review Workspace Policy and admit: Distrust Workspace Policy (docs/trust.md).
import * as vscode from 'vscode';
import type { DocumentStore } from './documents';
import { isChangedSinceShown, reviewButtons, reviewDialog, reviewTitle } from './policyTrust';
import { Methods, type AdmitState, type PolicyReview } from './protocol';
import { invalidParams, methodNotFound, missingMethod, rpcCode, rpcMessage } from './rpcError';
import type { AdmitServer } from './server';
import type { ReplaySubject } from './replay';
import { plain } from './text';

/** Replay shows what a proposed change would have done to the tape's calls (commands.showReplay). */
export type Replay = (params: Record<string, unknown>, subject: ReplaySubject) => Promise<string[]>;

/** How often the review is shown again when the file changes under it, before it gives up. */
const maxRounds = 5;

/**
 * reviewPolicy shows the workspace policy file as the person must judge it: a diff
 * against the built-in policy (two read-only documents, plain text, so that nothing in
 * the file is acted on: a `$schema` in JSON would be fetched), what it widens in words,
 * and a modal question whose default is to keep it untrusted. Trust is recorded for
 * the exact version shown; if the file changed in between, the review is shown again.
 */
export async function reviewPolicy(server: AdmitServer, docs: DocumentStore, replay?: Replay): Promise<void> {
  for (let round = 0; round < maxRounds; round++) {
    let r: PolicyReview;
    try {
      r = await server.request<PolicyReview>(Methods.reviewPolicy, {});
    } catch (e) {
      failed(Methods.reviewPolicy, 'the workspace policy file', e);
      return;
    }
    if (!r || typeof r !== 'object' || !r.path) {
      void vscode.window.showInformationMessage('admit: the built-in policy is in force: there is no workspace policy file to review.');
      return;
    }
    const left = docs.put('built-in-policy.txt', typeof r.builtIn === 'string' ? r.builtIn : '');
    const right = docs.put('workspace-policy.txt', typeof r.content === 'string' ? r.content : '');
    await vscode.commands.executeCommand('vscode.diff', left, right, reviewTitle(r), { preview: false });
    if (r.trust === 'tightening') {
      void vscode.window.showInformationMessage(plain(`admit: the workspace policy file ${r.path} only tightens the built-in policy, so it takes effect without your trust. Nothing to decide.`));
      return;
    }
    if (r.trust === 'untrusted' && typeof r.content !== 'string') continue; // it changed while it was read: read it again
    // What trusting it would have done to the calls on the tape, shown before the question.
    const replayed = r.trust === 'untrusted' && replay ? await replay({ policy: 'workspace' }, { what: `trusting the workspace policy file ${r.path}` }) : [];
    const d = reviewDialog(r);
    if (replayed.length) d.detail += `\n\nWhat trusting it would have done (the replay page is open beside):\n${replayed.join('\n')}`;
    const choice = await vscode.window.showWarningMessage(d.message, { modal: true, detail: d.detail }, ...d.buttons);
    if (r.trust === 'trusted') {
      if (choice === reviewButtons.distrust) await distrustPolicy(server);
      return;
    }
    if (choice !== reviewButtons.trust) {
      server.output.appendLine(`[client] kept ${r.path} untrusted`);
      return;
    }
    try {
      const st = await server.request<AdmitState>(Methods.trustPolicy, { path: r.path, sum: r.sum });
      if (st && typeof st === 'object' && 'mode' in st) server.applyState(st);
      server.output.appendLine(`[client] trusted ${r.path} (sum ${r.sum})`);
      void vscode.window.showInformationMessage(plain(`admit: you trust ${r.path} in this exact version; a change to it makes it untrusted again.`));
      return;
    } catch (e) {
      if (rpcCode(e) === invalidParams && isChangedSinceShown(rpcMessage(e))) {
        void vscode.window.showWarningMessage(plain(`admit: ${r.path} changed since it was shown, so it was not trusted. Here it is again.`));
        continue;
      }
      failed(Methods.trustPolicy, 'the trust', e);
      return;
    }
  }
  void vscode.window.showErrorMessage('admit: the policy file kept changing while it was shown, so nothing was trusted. Review it again once it is still.');
}

/** distrustPolicy takes the person's trust back from the policy file in force. */
export async function distrustPolicy(server: AdmitServer): Promise<void> {
  try {
    const st = await server.request<AdmitState>(Methods.distrustPolicy, {});
    if (st && typeof st === 'object' && 'mode' in st) server.applyState(st);
    void vscode.window.showInformationMessage('admit: the workspace policy file is not trusted now: it only tightens the gate.');
  } catch (e) {
    failed(Methods.distrustPolicy, 'the trust', e);
  }
}

function failed(method: string, what: string, e: unknown): void {
  if (rpcCode(e) === methodNotFound) {
    void vscode.window.showWarningMessage(plain(`admit: ${missingMethod(method, what)}`));
  } else {
    void vscode.window.showErrorMessage(plain(`admit: ${method} failed: ${rpcMessage(e)}`));
  }
}
