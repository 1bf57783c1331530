// admit's VS Code extension: starts `admit serve`, draws the mode, the approval
// prompts and the decisions, and gives agents an API. It holds no policy of its own.
import * as vscode from 'vscode';
import { makeApi } from './api';
import { ApprovalQueue } from './approvals';
import { campaignReport, filterDecisions, selectMode, setFilter, showDecision, showTape } from './commands';
import { DecisionsProvider, DecisionStore } from './decisions';
import { DocumentStore, scheme } from './documents';
import type { AdmitApi, Decision } from './protocol';
import { AdmitServer, ServerUnavailableError, settings } from './server';
import { StatusBar } from './status';

let current: AdmitServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<AdmitApi> {
  const output = vscode.window.createOutputChannel('admit');
  const status = new StatusBar();
  const approvals = new ApprovalQueue({
    modal: () => settings().modal,
    prompt: (message, modal, buttons) => vscode.window.showWarningMessage(message, { modal }, ...buttons),
    onSettled: (id, answer, how) => output.appendLine(`[client] approval ${id}: ${answer} (${how})`),
  });
  const server = new AdmitServer(context, output, status, approvals);
  current = server;
  const docs = new DocumentStore();
  const provider = new DecisionsProvider(new DecisionStore(500));
  const view = vscode.window.createTreeView('admit.decisions', { treeDataProvider: provider });

  server.onDidDecide((d: Decision) => {
    provider.add(d);
    status.setLastDecision(d);
  });

  const api = makeApi(
    (method, params) => server.request(method, params),
    server.onDidDecide,
    (e) => e instanceof ServerUnavailableError,
  );

  const reg = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown);
  context.subscriptions.push(
    output, status, server, docs, provider, view,
    vscode.workspace.registerTextDocumentContentProvider(scheme, docs),
    reg('admit.selectMode', () => selectMode(server)),
    reg('admit.restartServer', () => server.restart()),
    reg('admit.showTape', () => showTape(server, docs)),
    reg('admit.campaignReport', () => campaignReport(server)),
    reg('admit.showDecision', (d: Decision) => showDecision(server, docs, d)),
    reg('admit.filterDecisions', () => filterDecisions(view, provider)),
    reg('admit.clearDecisionFilter', () => setFilter(view, provider, undefined)),
    reg('admit.check', (p: Parameters<AdmitApi['check']>[0]) => api.check(p)),
    reg('admit.observe', (p: Parameters<AdmitApi['observe']>[0]) => api.observe(p)),
    reg('admit.run', (p: Parameters<AdmitApi['run']>[0]) => api.run(p)),
    reg('admit.read', (p: Parameters<AdmitApi['read']>[0]) => api.read(p)),
    reg('admit.edit', (p: Parameters<AdmitApi['edit']>[0]) => api.edit(p)),
    reg('admit.write', (p: Parameters<AdmitApi['write']>[0]) => api.write(p)),
    reg('admit.openSession', (p: Parameters<AdmitApi['openSession']>[0]) => api.openSession(p)),
    reg('admit.closeSession', (p: Parameters<AdmitApi['closeSession']>[0]) => api.closeSession(p)),
  );

  await server.start();
  return api;
}

/** deactivate stops the server and waits for it (VS Code waits for the promise). */
export function deactivate(): Promise<void> | undefined {
  const s = current;
  current = undefined;
  return s?.stop();
}
