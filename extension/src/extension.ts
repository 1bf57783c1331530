// admit's VS Code extension: starts `admit serve`, draws the mode, the approval
// prompts, the policy file's trust, the person's rules and the decisions, connects the
// agents installed for this user, offers admit's own tools to the editor's agents, and
// gives agents an API. It holds no policy of its own.
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { hooksOffNotice, hooksOffOf, useHooksOffWhere } from './agents';
import { agentsGroup } from './agentsView';
import { makeApi } from './api';
import { answerCommand, ApprovalQueue, diffCommand, lateNotice } from './approvals';
import { CampaignReport, filterDecisions, selectMode, setFilter, showDecision, showReplay, showTape } from './commands';
import { AgentConnections } from './connect';
import { DecisionsProvider, DecisionStore } from './decisions';
import { DocumentStore, scheme } from './documents';
import { install, installedBinary, installFolder, type InstallResult } from './install';
import { isProbeAgent, LmTools, toolsAgent } from './lmTools';
import { registerMcpProvider } from './mcpProvider';
import { managedNotices } from './managed';
import { PagePanel } from './pages';
import { ApprovalPrompts, openProposedDiff } from './prompts';
import type { AdmitApi, AdmitEffects, AdmitMode, Decision } from './protocol';
import type { ReplaySubject } from './replay';
import { addSuggestedCommand } from './report';
import { addRuleCommand, openRulesFile, removeRuleCommand, RulesProvider, type RuleNode } from './rules';
import { AdmitServer, ServerUnavailableError, settings } from './server';
import { bundledServer } from './settings';
import { personSettingsPath, syncPersonSettings } from './personSettings';
import { StatusBar } from './status';
import { plain } from './text';
import { distrustPolicy, reviewPolicy } from './trustCommands';

let current: AdmitServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<AdmitApi> {
  const output = vscode.window.createOutputChannel('admit');
  const log = (line: string) => output.appendLine(`[client ${new Date().toISOString()}] ${line}`);
  const status = new StatusBar();
  const docs = new DocumentStore();
  const prompts = new ApprovalPrompts(log, (v, column) => openProposedDiff(docs, v, column));
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
  const replayPanel = new PagePanel('admit.replay', []);
  const report = new CampaignReport(server, rules, reportPanel, replayPanel);
  const replay = (params: Record<string, unknown>, subject: ReplaySubject) => showReplay(server, replayPanel, params, subject);

  server.onDidDecide((d: Decision) => {
    provider.add(d);
    status.setLastDecision(d);
    if (typeof d.agent === 'string' && d.agent && !isProbeAgent(d.agent)) {
      connections.book.decided(d);
      redrawAgents();
    }
    if (rulesStale) refreshRules();
  });
  // The rules and the agents are read whenever a server (re)starts, and the rules when the person saves a rules file.
  let lastStart: unknown;
  server.onDidChangeState(() => {
    if (lastStart === server.startCount) return;
    lastStart = server.startCount;
    tools.reset();
    void rules.refresh();
    void connections.survey();
  });
  // The agents' files change outside the editor too (admit connect in a terminal): read them again when the window comes back.
  let surveyed = 0;
  const resurvey = () => {
    if (!server.running || Date.now() - surveyed < 30_000) return;
    surveyed = Date.now();
    void connections.survey();
  };

  // The binary the agents' hooks and MCP definitions name: a copy outside the
  // extension's versioned folder and every workspace, on PATH in the editor's terminals.
  const place = { platform: process.platform, home: os.homedir(), env: process.env };
  const binDir = installFolder(place);
  const installed: Promise<InstallResult> = new Promise<InstallResult>((resolve) => setImmediate(() => resolve(install(bundledServer(context.extensionPath), installedBinary(place)))));
  void installed.then((r) => {
    if (r.kind === 'failed') log(`installing admit for the agents' hooks: ${r.error}`);
    else log(`admit for the agents' hooks and terminals: ${r.path} (${r.kind})`);
  });
  const env = context.environmentVariableCollection;
  if (env.get('PATH')?.value !== binDir + path.delimiter) env.prepend('PATH', binDir + path.delimiter);

  // The agents: which are connected, each one's last decision (tooltip, view).
  const connections = new AgentConnections({
    request: (m, p) => server.request(m, p),
    log,
    binary: () => installed,
    changed: () => redrawAgents(),
  }, docs);
  const redrawAgents = () => {
    const rows = connections.book.rows();
    status.setAgents(rows);
    provider.setHead(agentsGroup(rows));
  };
  const noteDecision = (id: string, agent: string) => {
    provider.annotate(id, agent);
    const d = provider.store.byId(id);
    if (d) {
      connections.book.decided(d);
      redrawAgents();
    }
  };
  const tools = new LmTools({
    request: (m, p, t) => server.request(m, p, t),
    isUnavailable: (e) => e instanceof ServerUnavailableError,
    log,
    annotate: (id) => noteDecision(id, toolsAgent),
    folder: () => vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath,
  });
  tools.register();
  const socket = (waitMs: number) => new Promise<string | undefined>((resolve) => {
    if (server.running && server.state?.socket) return resolve(server.state.socket);
    const timer = setTimeout(() => { sub.dispose(); resolve(undefined); }, waitMs);
    const sub = server.onDidChangeState((st) => {
      if (server.running && st.socket) {
        clearTimeout(timer);
        sub.dispose();
        resolve(st.socket);
      }
    });
  });
  const mcp = registerMcpProvider({ binary: async () => ((await installed).kind === 'failed' ? undefined : (await installed).path), socket, log });

  // Hooks switched off: the repository's files (the server's state) and chat.useHooks.
  const readUseHooks = () => status.setUseHooksOff(useHooksOffWhere(vscode.workspace.getConfiguration('chat').inspect('useHooks')));
  readUseHooks();
  // The person's own settings that the organisation's managed layer overrides: said once each.
  const managedTold = new Set<string>();
  server.onDidChangeState((st) => {
    const mine = vscode.workspace.getConfiguration('admit');
    const own = (key: string) => mine.inspect<string>(key)?.globalValue;
    for (const m of managedNotices(st, { mode: own('mode'), effects: own('effects'), shell: own('shell'), confinedRuns: own('confinedRuns') })) {
      if (managedTold.has(m)) continue;
      managedTold.add(m);
      void vscode.window.showInformationMessage(m);
    }
  });
  let hooksOffTold = '';
  let lastSocket: string | undefined;
  server.onDidChangeState((st) => {
    const h = { files: hooksOffOf(st.hooksOff), useHooksOff: useHooksOffWhere(vscode.workspace.getConfiguration('chat').inspect('useHooks')) };
    const key = JSON.stringify(h);
    if (key !== hooksOffTold) {
      hooksOffTold = key;
      if (h.files.length || h.useHooksOff) void vscode.window.showWarningMessage(hooksOffNotice(h));
    }
    if (st.socket !== lastSocket) {
      lastSocket = st.socket;
      mcp?.changed();
    }
  });

  const api = makeApi(request, server.onDidDecide, (e) => e instanceof ServerUnavailableError, (params, v) => {
    const agent = (params as { context?: { agent?: unknown } } | undefined)?.context?.agent;
    const id = (v as { id?: unknown } | undefined)?.id;
    if (typeof agent === 'string' && agent && typeof id === 'string' && id) provider.annotate(id, agent);
  });

  // The mode and effects of the person's user settings are also what a hook uses
  // deciding without the editor (personSettings.ts); a workspace's value never is.
  const shareChoice = async () => {
    const cfg = vscode.workspace.getConfiguration('admit');
    const mode = cfg.inspect<AdmitMode>('mode')?.globalValue;
    const effects = cfg.inspect<AdmitEffects>('effects')?.globalValue;
    if (!mode && !effects) return;
    const file = personSettingsPath(process.env, os.homedir());
    try {
      if ((await syncPersonSettings(file, { mode, effects })) === 'written') {
        log(`settings: a hook deciding without the editor now uses your ${[mode && `mode ${mode}`, effects && `effects ${effects}`].filter(Boolean).join(' and ')} (${file})`);
      }
    } catch (e) {
      log(`settings: could not write ${file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  void shareChoice();

  const reg = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown);
  context.subscriptions.push(
    output, status, server, docs, provider, view, rules, rulesView, prompts, decisionPanel, reportPanel, replayPanel, tools,
    server.interceptApprovals(tools.interceptor),
    ...(mcp ? [mcp.disposable] : []),
    vscode.window.onDidChangeWindowState((w) => w.focused && resurvey()),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('chat.useHooks') && readUseHooks()),
    vscode.workspace.onDidChangeConfiguration((e) => (e.affectsConfiguration('admit.mode') || e.affectsConfiguration('admit.effects')) && shareChoice()),
    vscode.workspace.onDidChangeWorkspaceFolders(() => mcp?.changed()),
    reg('admit.connectAgents', () => connections.run('connect')),
    reg('admit.disconnectAgent', () => connections.run('disconnect')),
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
    reg('admit.reviewPolicy', () => reviewPolicy(server, docs, replay)),
    reg('admit.distrustPolicy', () => distrustPolicy(server)),
    reg(answerCommand, (token: unknown, answer: unknown) => prompts.answer(token, answer)),
    reg('admit.dismissApproval', () => prompts.dismiss()),
    reg(diffCommand, (token: unknown) => prompts.showDiff(token)),
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
