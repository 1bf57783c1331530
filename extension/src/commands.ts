// The commands that query the server and show what it says: Select Mode, Show Tape,
// Campaign Report, Show Decision, the decision filters.
import * as vscode from 'vscode';
import { classify, describeFilter, type DecisionClass, type DecisionFilter, type DecisionsProvider } from './decisions';
import type { DocumentStore } from './documents';
import { Methods, type AdmitEffects, type AdmitMode, type Decision, type TapeQuery, type TapeRecord } from './protocol';
import { groupWouldDeny, renderReport } from './report';
import type { AdmitServer } from './server';
import { oneLine, plain } from './text';

export const modeItems: { value: AdmitMode; description: string }[] = [
  { value: 'enforce', description: 'Refused calls do not run; a person is asked where a rule says so.' },
  { value: 'warn', description: 'Decide and record every call, but let refused calls run.' },
  { value: 'off', description: 'Decide nothing and record nothing.' },
];
export const effectsItems: { value: AdmitEffects; description: string }[] = [
  { value: 'read-only', description: 'Agents may read; nothing that changes files is admitted.' },
  { value: 'workspace-write', description: 'Agents may change files inside the workspace folders.' },
];

/** A quick pick row for one value: marked when it is in force, and when it is the person's own setting. */
export function choiceItem<T extends string>(m: { value: T; description: string }, current: T, mine: T): vscode.QuickPickItem & { value: T } {
  const marks = [m.value === current ? '$(check) current' : '', m.value === mine && mine !== current ? 'your setting' : ''].filter(Boolean);
  return { label: m.value, description: marks.join(' · '), detail: m.description, value: m.value };
}

/**
 * selectMode asks for the mode, then the effects, and writes them to the person's user
 * settings (never the repository's); the settings change sends them to the server. When
 * a stricter workspace value or Restricted Mode keeps the gate tighter than the choice,
 * it says so.
 */
export async function selectMode(server: AdmitServer): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('admit');
  const s = server.settings();
  const mineMode = (cfg.inspect<AdmitMode>('mode')?.globalValue ?? s.mode) as AdmitMode;
  const mineEffects = (cfg.inspect<AdmitEffects>('effects')?.globalValue ?? s.effects) as AdmitEffects;
  const curMode = server.state?.mode ?? s.mode;
  const curEffects = server.state?.effects ?? s.effects;
  const restricted = s.restricted ? ' (Restricted Mode: enforce and read-only until you trust this workspace)' : '';
  const mode = await vscode.window.showQuickPick(
    modeItems.map((m) => choiceItem(m, curMode, mineMode)),
    { title: `admit: mode, in your user settings${restricted}`, placeHolder: `Mode (now ${curMode})` },
  );
  if (!mode) return;
  let effects: AdmitEffects = mineEffects;
  if (mode.value !== 'off') {
    const e = await vscode.window.showQuickPick(
      effectsItems.map((m) => choiceItem(m, curEffects, mineEffects)),
      { title: `admit: effects, in your user settings${restricted}`, placeHolder: `Effects (now ${curEffects})` },
    );
    if (!e) return;
    effects = e.value;
  }
  try {
    await cfg.update('mode', mode.value, vscode.ConfigurationTarget.Global);
    await cfg.update('effects', effects, vscode.ConfigurationTarget.Global);
  } catch (err) {
    void vscode.window.showErrorMessage(plain(`admit: could not write your user settings: ${err instanceof Error ? err.message : String(err)}`));
    return;
  }
  // The configuration change has told the server; say why the gate is tighter, if it is.
  await server.settingsChanged();
  const now = server.settings();
  if (now.mode !== mode.value || (mode.value !== 'off' && now.effects !== effects)) {
    const why = now.restricted
      ? 'this workspace is not trusted (Restricted Mode)'
      : "the workspace's settings are stricter, and a workspace may tighten the gate (see the admit output)";
    void vscode.window.showInformationMessage(`admit: your settings say ${mode.value}, ${effects}; the gate runs in ${now.mode}, ${now.effects} because ${why}.`);
  }
}

/**
 * decisionDocument is the read-only document of one decision: JSON, in which every text
 * is a JSON string (quotes, newlines and controls escaped), so nothing in it is markup;
 * its name is made of characters that cannot change its path.
 */
export function decisionDocument(d: Decision, tapeLine: TapeRecord | undefined): { name: string; text: string } {
  const body = { decision: d, class: classify(d), tape: tapeLine ?? null };
  return { name: `decision-${(d.id || 'unknown').replace(/[^A-Za-z0-9._-]/g, '_')}.json`, text: JSON.stringify(body, null, 2) + '\n' };
}

export async function showDecision(server: AdmitServer, docs: DocumentStore, d: Decision | undefined): Promise<void> {
  if (!d) return;
  let tapeLine: TapeRecord | undefined;
  if (d.id) {
    try {
      const q: TapeQuery = { limit: 500 };
      if (d.tool) q.tool = d.tool;
      if (d.rule) q.rule = d.rule;
      const res = await server.request<{ records: TapeRecord[] }>(Methods.tape, q);
      tapeLine = res.records?.find((r) => r.id === d.id);
    } catch (e) {
      server.output.appendLine(`admit/tape for ${d.id}: ${String(e)}`);
    }
  }
  const doc = decisionDocument(d, tapeLine);
  await docs.open(doc.name, doc.text);
}

export async function showTape(server: AdmitServer, docs: DocumentStore): Promise<void> {
  const v = await vscode.window.showQuickPick(
    [
      { label: 'any verdict', value: undefined },
      { label: 'deny', value: 'deny' as const },
      { label: 'allow', value: 'allow' as const },
    ],
    { title: 'admit: Show Tape (1/3)', placeHolder: 'Verdict' },
  );
  if (!v) return;
  const rule = await vscode.window.showInputBox({ title: 'admit: Show Tape (2/3)', prompt: 'Rule (empty: any), e.g. not-in-allow-list' });
  if (rule === undefined) return;
  const tool = await vscode.window.showInputBox({ title: 'admit: Show Tape (3/3)', prompt: 'Tool (empty: any)' });
  if (tool === undefined) return;
  const q: TapeQuery = { limit: 500 };
  if (v.value) q.verdict = v.value;
  if (rule.trim()) q.rule = rule.trim();
  if (tool.trim()) q.tool = tool.trim();
  try {
    const res = await server.request<{ records: TapeRecord[] }>(Methods.tape, q);
    await docs.open('tape.json', JSON.stringify({ query: q, records: res.records ?? [] }, null, 2) + '\n');
  } catch (e) {
    void vscode.window.showErrorMessage(plain(`admit: could not read the tape: ${e instanceof Error ? e.message : String(e)}`));
  }
}

export async function campaignReport(server: AdmitServer): Promise<void> {
  try {
    const res = await server.request<{ records: TapeRecord[] }>(Methods.tape, { verdict: 'deny', limit: 100000 });
    const records = res.records ?? [];
    const md = renderReport(groupWouldDeny(records), records.length, server.state?.tape);
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: md });
    await vscode.window.showTextDocument(doc, { preview: false });
  } catch (e) {
    void vscode.window.showErrorMessage(plain(`admit: could not build the report: ${e instanceof Error ? e.message : String(e)}`));
  }
}

export async function filterDecisions(view: vscode.TreeView<Decision>, provider: DecisionsProvider): Promise<void> {
  const all = provider.store.all();
  const rules = [...new Set(all.map((d) => d.rule).filter(Boolean))].sort();
  const tools = [...new Set(all.map((d) => d.tool).filter(Boolean))].sort();
  const classes: DecisionClass[] = ['allowed', 'refused', 'would-deny', 'asked'];
  type Item = vscode.QuickPickItem & { f?: DecisionFilter };
  const items: Item[] = [
    { label: 'Show all', f: undefined },
    { label: 'verdict', kind: vscode.QuickPickItemKind.Separator },
    ...classes.map((c) => ({ label: c, f: { cls: c } })),
    { label: 'rule', kind: vscode.QuickPickItemKind.Separator },
    ...rules.map((r) => ({ label: oneLine(r), description: 'rule', f: { rule: r } })),
    { label: 'tool', kind: vscode.QuickPickItemKind.Separator },
    ...tools.map((t) => ({ label: oneLine(t), description: 'tool', f: { tool: t } })),
  ];
  const pick = await vscode.window.showQuickPick(items, { title: 'admit: filter decisions' });
  if (!pick) return;
  setFilter(view, provider, pick.f);
}

export function setFilter(view: vscode.TreeView<Decision>, provider: DecisionsProvider, f: DecisionFilter | undefined): void {
  provider.setFilter(f);
  view.description = f ? `filter: ${describeFilter(f)}` : undefined;
  void vscode.commands.executeCommand('setContext', 'admit.decisionsFiltered', !!f);
}
