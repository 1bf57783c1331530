// admit's VS Code extension: starts `admit serve`, draws the mode, the approval
// prompts, the policy file's trust, the person's rules and the decisions, and gives
// agents an API. It holds no policy of its own.
import * as vscode from 'vscode';
import { makeApi } from './api';
import { answerCommand, ApprovalQueue, lateNotice } from './approvals';
import { CampaignReport, filterDecisions, selectMode, setFilter, showDecision, showTape } from './commands';
import { DecisionsProvider, DecisionStore } from './decisions';
import { DocumentStore, scheme } from './documents';
import { PagePanel } from './pages';
import { ApprovalPrompts } from './prompts';
import type { AdmitApi, Decision } from './protocol';
import { addSuggestedCommand } from './report';
import { addRuleCommand, openRulesFile, removeRuleCommand, RulesProvider, type RuleNode } from './rules';
import { AdmitServer, ServerUnavailableError, settings } from './server';
import { StatusBar } from './status';
import { plain } from './text';
import { distrustPolicy, reviewPolicy } from './trustCommands';

let current: AdmitServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<AdmitApi> {
  const output = vscode.window.createOutputChannel('admit');
  const log = (line: string) => output.appendLine(`[client ${new Date().toISOString()}] ${line}`);
  const status = new StatusBar();
  const prompts = new ApprovalPrompts(log);
  const docs = new DocumentStore();
  const provider = new DecisionsProvider(new DecisionStore(500));
  const view = vscode.window.createTreeView('admit.decisions', { treeDataProvider: provider });

  // After an "always allow" answer the server writes the rule: show it once the
  // decision it answered is announced (or shortly after, whichever is first).
  let rulesStale: NodeJS.Timeout | undefined;
  let refreshRules = () => {};
  const approvals = new ApprovalQueue({
    modal: () => settings().modal,
    prompt: prompts.prompter,
    onSettled: (id, answer, how, params) => {
      log(`approval ${id}: ${answer} (${how})`);
      if (answer === 'allow-always' && how === 'answered') {
        void vscode.window.showInformationMessage(plain(`admit: the server adds the rule allow ${params.rule?.match ?? ''} (${params.rule?.scope === 'user' ? 'every workspace' : 'this workspace'}); see the Rules view.`));
        rulesStale = setTimeout(() => refreshRules(), 1500);
      }
    },
    onLate: (v, how, answered) => void vscode.window.showInformationMessage(lateNotice(v, how, answered)),
  });
  const server = new AdmitServer(context, output, status, approvals);
  current = server;
  const request = <R>(method: string, params: unknown) => server.request<R>(method, params);
  const rules = new RulesProvider(request);
  const rulesView = vscode.window.createTreeView('admit.rules', { treeDataProvider: rules });
  rules.view = rulesView;
  rules.onState = (s) => void vscode.commands.executeCommand('setContext', 'admit.rulesAvailable', s.kind === 'ok');
  refreshRules = () => {
    if (rulesStale) clearTimeout(rulesStale);
    rulesStale = undefined;
    void rules.refresh();
  };
  const decisionPanel = new PagePanel('admit.decision', []);
  const reportPanel = new PagePanel('admit.report', [addSuggestedCommand]);
  const report = new CampaignReport(server, rules, reportPanel);

  server.onDidDecide((d: Decision) => {
    provider.add(d);
    status.setLastDecision(d);
    if (rulesStale) refreshRules();
  });
  // The rules are read whenever a server (re)starts, and when the person saves a rules file.
  let lastStart: unknown;
  server.onDidChangeState(() => {
    if (lastStart === server.startCount) return;
    lastStart = server.startCount;
    void rules.refresh();
  });

  const api = makeApi(request, server.onDidDecide, (e) => e instanceof ServerUnavailableError, (params, v) => {
    const agent = (params as { context?: { agent?: unknown } } | undefined)?.context?.agent;
    const id = (v as { id?: unknown } | undefined)?.id;
    if (typeof agent === 'string' && agent && typeof id === 'string' && id) provider.annotate(id, agent);
  });

  const reg = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown);
  context.subscriptions.push(
    output, status, server, docs, provider, view, rules, rulesView, prompts, decisionPanel, reportPanel,
    vscode.workspace.registerTextDocumentContentProvider(scheme, docs),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      const f = rules.files;
      if (doc.uri.scheme === 'file' && (doc.uri.fsPath === f.user || doc.uri.fsPath === f.workspace)) void rules.refresh();
    }),
    reg('admit.selectMode', () => selectMode(server)),
    reg('admit.restartServer', () => server.restart()),
    reg('admit.showTape', () => showTape(server, docs)),
    reg('admit.campaignReport', () => report.open()),
    reg(addSuggestedCommand, (token: unknown, index: unknown) => report.add(token, index)),
    reg('admit.showDecision', (d: Decision) => showDecision(server, decisionPanel, d)),
    reg('admit.filterDecisions', () => filterDecisions(view, provider)),
    reg('admit.clearDecisionFilter', () => setFilter(view, provider, undefined)),
    reg('admit.reviewPolicy', () => reviewPolicy(server, docs)),
    reg('admit.distrustPolicy', () => distrustPolicy(server)),
    reg(answerCommand, (token: unknown, answer: unknown) => prompts.answer(token, answer)),
    reg('admit.dismissApproval', () => prompts.dismiss()),
    reg('admit.showApproval', () => {
      if (!prompts.reveal() && approvals.pending === 0) void selectMode(server);
    }),
    reg('admit.refreshRules', () => rules.refresh()),
    reg('admit.addRule', () => addRuleCommand(request, rules)),
    reg('admit.removeRule', (n: RuleNode | undefined) => removeRuleCommand(request, rules, n)),
    reg('admit.openRulesFile', () => openRulesFile(rules)),
    reg('admit.check', (p: Parameters<AdmitApi['check']>[0]) => api.check(p)),
    reg('admit.observe', (p: Parameters<AdmitApi['observe']>[0]) => api.observe(p)),
    reg('admit.run', (p: Parameters<AdmitApi['run']>[0]) => api.run(p)),
    reg('admit.read', (p: Parameters<AdmitApi['read']>[0]) => api.read(p)),
    reg('admit.edit', (p: Parameters<AdmitApi['edit']>[0]) => api.edit(p)),
    reg('admit.write', (p: Parameters<AdmitApi['write']>[0]) => api.write(p)),
    reg('admit.openSession', (p: Parameters<AdmitApi['openSession']>[0]) => api.openSession(p)),
    reg('admit.closeSession', (p: Parameters<AdmitApi['closeSession']>[0]) => api.closeSession(p)),
    { dispose: () => rulesStale && clearTimeout(rulesStale) },
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
