// The commands that query the server and show what it says: Select Mode, Show Tape,
// Campaign Report, Show Decision, the decision filters.
import * as vscode from 'vscode';
import { decisionPage } from './decisionPage';
import { describeFilter, lookWords, type DecisionClass, type DecisionFilter, type DecisionsNode, type DecisionsProvider } from './decisions';
import type { DocumentStore } from './documents';
import type { PagePanel } from './pages';
import { nonce } from './prompts';
import { Methods, type AdmitEffects, type AdmitMode, type Decision, type RuleSuggestion, type TapeQuery, type TapeRecord } from './protocol';
import { groupWouldDeny, renderReport, type ReportGroup, type Suggestions } from './report';
import { methodNotFound, missingMethod, rpcCode, rpcMessage } from './rpcError';
import { addRule, pickScope, type RulesProvider } from './rules';
import type { AdmitServer } from './server';
import { pinOf } from './managed';
import { renderReplay, replayFailedPage, replayReportOf, replaySummary, type ReplaySubject } from './replay';
import { oneLine, pickText, plain } from './text';

export const modeItems: { value: AdmitMode; description: string }[] = [
  { value: 'enforce', description: 'Refused calls do not run; a person is asked where a rule says so.' },
  { value: 'warn', description: 'Decide and record every call, but let refused calls run.' },
  { value: 'off', description: 'Decide nothing and record nothing.' },
];
export const effectsItems: { value: AdmitEffects; description: string }[] = [
  { value: 'read-only', description: 'Agents may read; nothing that changes files is admitted.' },
  { value: 'workspace-write', description: 'Agents may change files inside the workspace folders.' },
];

/** A quick pick row for one value: marked when it is in force, when it is the person's own setting, and when the organisation pins it. */
export function choiceItem<T extends string>(m: { value: T; description: string }, current: T, mine: T, pinned?: string): vscode.QuickPickItem & { value: T } {
  const marks = [
    m.value === current ? '$(check) current' : '',
    m.value === mine && mine !== current ? 'your setting' : '',
    pinned === m.value ? '$(organization) managed by your organisation' : '',
  ].filter(Boolean);
  return { label: m.value, description: marks.join(' · '), detail: m.description, value: m.value };
}

/** pinnedRefusal is what choosing another value than the organisation's pin says, or undefined when the choice stands. */
export function pinnedRefusal(key: 'mode' | 'effects', pinned: string | undefined, chosen: string): string | undefined {
  if (!pinned || pinned === chosen) return undefined;
  return plain(`admit: the ${key} is managed by your organisation (${pinned}); your settings cannot change it.`);
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
  const pinMode = pinOf(server.state, 'mode');
  const pinEffects = pinOf(server.state, 'effects');
  const mode = await vscode.window.showQuickPick(
    modeItems.map((m) => choiceItem(m, curMode, mineMode, pinMode)),
    { title: `admit: mode, in your user settings${restricted}`, placeHolder: `Mode (now ${curMode})` },
  );
  if (!mode) return;
  const modeRefused = pinnedRefusal('mode', pinMode, mode.value);
  if (modeRefused) {
    void vscode.window.showInformationMessage(modeRefused);
    return;
  }
  let effects: AdmitEffects = mineEffects;
  if (mode.value !== 'off') {
    const e = await vscode.window.showQuickPick(
      effectsItems.map((m) => choiceItem(m, curEffects, mineEffects, pinEffects)),
      { title: `admit: effects, in your user settings${restricted}`, placeHolder: `Effects (now ${curEffects})` },
    );
    if (!e) return;
    const effectsRefused = pinnedRefusal('effects', pinEffects, e.value);
    if (effectsRefused) {
      void vscode.window.showInformationMessage(effectsRefused);
      return;
    }
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

/** showDecision opens one decision as a readable page, with its tape line (looked up by id) underneath. */
export async function showDecision(server: AdmitServer, panel: PagePanel, d: Decision | undefined): Promise<void> {
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
  const tool = oneLine(d.tool ?? '');
  panel.show(`admit: ${lookWords(d)} ${tool.length > 30 ? `${tool.slice(0, 29)}…` : tool}`, decisionPage(d, tapeLine, nonce()));
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

/**
 * CampaignReport is the report after a warn-mode campaign, in a webview panel: what
 * would have been refused, with remedies, and the rules admit/suggestRules proposes,
 * each of which the person can add (admit.addSuggestedRule [token, index]).
 */
export class CampaignReport {
  private token = 0;
  private suggestions: RuleSuggestion[] = [];
  private added = new Set<number>();
  private drawn: { groups: ReportGroup[]; scanned: number; tape?: string; unavailable?: string } | undefined;

  constructor(
    private readonly server: AdmitServer,
    private readonly rules: RulesProvider,
    private readonly panel: PagePanel,
    private readonly replayPanel: PagePanel,
  ) {}

  async open(): Promise<void> {
    let records: TapeRecord[];
    try {
      const res = await this.server.request<{ records: TapeRecord[] }>(Methods.tape, { verdict: 'deny', limit: 100000 });
      records = res.records ?? [];
    } catch (e) {
      void vscode.window.showErrorMessage(plain(`admit: could not build the report: ${e instanceof Error ? e.message : String(e)}`));
      return;
    }
    let unavailable: string | undefined;
    try {
      const res = await this.server.request<{ suggestions: RuleSuggestion[] }>(Methods.suggestRules, {});
      this.suggestions = Array.isArray(res?.suggestions) ? res.suggestions.filter((x) => x && typeof x.match === 'string') : [];
    } catch (e) {
      this.suggestions = [];
      unavailable = rpcCode(e) === methodNotFound ? missingMethod(Methods.suggestRules, 'proposed rules') : `admit/suggestRules failed: ${rpcMessage(e)}`;
    }
    this.token++;
    this.added = new Set();
    this.drawn = { groups: groupWouldDeny(records), scanned: records.length, tape: this.server.state?.tape, unavailable };
    this.panel.show('admit: campaign report', this.html());
  }

  private html(): string {
    const d = this.drawn!;
    const s: Suggestions = d.unavailable ? { kind: 'unavailable', message: d.unavailable } : { kind: 'ok', list: this.suggestions, added: this.added };
    return renderReport(d.groups, d.scanned, d.tape, s, this.token, nonce());
  }

  /** add is a click on a proposal's link: where the rule goes is asked, then the server adds it. */
  async add(token: unknown, index: unknown): Promise<void> {
    const s = typeof index === 'number' ? this.suggestions[index] : undefined;
    if (token !== this.token || !s || !this.drawn) {
      void vscode.window.showInformationMessage('admit: that report is out of date; open the campaign report again.');
      return;
    }
    if (this.added.has(index as number)) return;
    const decision = (['allow', 'ask', 'deny'] as const).find((x) => x === s.decision);
    if (!decision) return;
    // What the rule would have done to the calls on the tape, before it is taken.
    await showReplay(this.server, this.replayPanel, { addRule: { match: s.match, decision, scope: 'user' } }, { what: `adding the rule ${decision} ${s.match}` });
    const scope = await pickScope('admit: add the proposed rule', plain(`${decision} ${s.match}`));
    if (!scope) return;
    const r = await addRule((m, p) => this.server.request(m, p), s.effects ? { match: s.match, decision, scope, effects: s.effects } : { match: s.match, decision, scope });
    if (!r.ok) {
      void vscode.window.showErrorMessage(plain(`admit: the rule ${s.match} was not added: ${r.message}`));
      return;
    }
    this.rules.set(r.result);
    this.added.add(index as number);
    this.panel.update(this.html());
    void vscode.window.showInformationMessage(plain(`admit: added the rule ${decision} ${s.match} (${scope === 'user' ? 'every workspace' : 'this workspace'}).`));
  }
}

/**
 * showReplay asks the server what a proposed change (a workspace policy to trust, a rule
 * to take) would have done to the calls on the tape (admit/replay) and shows it as a
 * page, beside the question the person then answers. A replay that cannot be made says
 * why; the person still decides.
 */
export async function showReplay(server: AdmitServer, panel: PagePanel, params: Record<string, unknown>, subject: ReplaySubject): Promise<string[]> {
  let html: string;
  let summary: string[];
  try {
    const r = replayReportOf(await server.request<unknown>(Methods.replay, params));
    html = r ? renderReplay(subject, r, nonce()) : replayFailedPage(subject, 'the server sent no report', nonce());
    summary = r ? replaySummary(r) : [];
  } catch (e) {
    const why = rpcCode(e) === methodNotFound ? missingMethod(Methods.replay, 'the replay') : rpcMessage(e);
    html = replayFailedPage(subject, why, nonce());
    summary = [plain(`The calls on the tape could not be judged again: ${why}`)];
  }
  panel.show('admit: replay', html, true, true); // beside what the person judges (the diff, the report)
  return summary;
}

export async function filterDecisions(view: vscode.TreeView<DecisionsNode>, provider: DecisionsProvider): Promise<void> {
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
    ...rules.map((r) => ({ label: pickText(r), description: 'rule', f: { rule: r } })),
    { label: 'tool', kind: vscode.QuickPickItemKind.Separator },
    ...tools.map((t) => ({ label: pickText(t), description: 'tool', f: { tool: t } })),
  ];
  const pick = await vscode.window.showQuickPick(items, { title: 'admit: filter decisions' });
  if (!pick) return;
  setFilter(view, provider, pick.f);
}

export function setFilter(view: vscode.TreeView<DecisionsNode>, provider: DecisionsProvider, f: DecisionFilter | undefined): void {
  provider.setFilter(f);
  view.description = f ? `filter: ${describeFilter(f)}` : undefined;
  void vscode.commands.executeCommand('setContext', 'admit.decisionsFiltered', !!f);
}
