// The Rules view: the person's rules (admit/rules), with their decision, where each
// lives and its note; add, remove, open the file. The server owns the rules and checks
// each one (a rule whose examples fail, or that cannot be parsed, is a -32602 that names
// the problem); the view draws what it says. A server without the methods (-32601) gets
// a message in the view, not an error.
import * as vscode from 'vscode';
import { Methods, type PersonRule, type RuleEffects, type RuleScope, type RulesResult } from './protocol';
import { invalidParams, methodNotFound, missingMethod, rpcCode, rpcMessage } from './rpcError';
import { mdCode, mdText, oneLine, pickText, plain } from './text';

type Requester = <R>(method: string, params: unknown) => Promise<R>;

/** Each decision's icon and colour, all three different. */
export const ruleIcons: Record<PersonRule['decision'], { icon: string; color: string }> = {
  allow: { icon: 'pass', color: 'testing.iconPassed' },
  ask: { icon: 'question', color: 'editorWarning.foreground' },
  deny: { icon: 'circle-slash', color: 'errorForeground' },
};

/** sourceWords says where a rule lives, in words. */
export function sourceWords(source: string): string {
  switch (source) {
    case 'user':
      return 'your rules, every workspace';
    case 'workspace':
      return 'your rules, this workspace';
    default:
      return `from ${source || 'an unknown source'}`;
  }
}

/** removable says whether the editor may remove a rule: only the person's own. */
export function removable(r: PersonRule): r is PersonRule & { source: RuleScope } {
  return r.source === 'user' || r.source === 'workspace';
}

const decisions = new Set(['allow', 'ask', 'deny']);

/** ruleLabel is the row: the match as its label, decision and place (and the note) as its description. Plain, one line each. */
export function ruleLabel(r: PersonRule): { label: string; description: string } {
  const decision = decisions.has(r.decision) ? r.decision : '?';
  const note = typeof r.note === 'string' && r.note ? ` · ${r.note.length > 80 ? `${r.note.slice(0, 79)}…` : r.note}` : '';
  return { label: oneLine(String(r.match ?? '')), description: oneLine(`${decision} · ${sourceWords(String(r.source ?? ''))}${note}`) };
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** ruleTooltip is the row's tooltip: Markdown, every text literal. */
export function ruleTooltip(r: PersonRule, files: RulesResult['files']): string {
  const decision = decisions.has(r.decision) ? r.decision : '?';
  const lines = [`**${decision}** ${mdCode(String(r.match ?? ''))} — ${mdText(sourceWords(String(r.source ?? '')))}`];
  const file = r.source === 'user' ? files.user : r.source === 'workspace' ? files.workspace : undefined;
  if (file) lines.push('', `In ${mdCode(file)}`);
  if (typeof r.note === 'string' && r.note) lines.push('', mdText(r.note));
  const ex = strings(r.examples);
  const not = strings(r.notExamples);
  if (ex.length) lines.push('', `Matches: ${ex.map(mdCode).join(', ')}`);
  if (not.length) lines.push('', `Does not match: ${not.map(mdCode).join(', ')}`);
  lines.push('', 'A rule matches each simple command on its own: a chained command is judged part by part.');
  return lines.join('\n');
}

/** What the view holds: the rules, or why there are none. */
export type RulesState =
  | { kind: 'loading' }
  | { kind: 'ok'; result: RulesResult }
  | { kind: 'unavailable'; message: string };

/** rulesMessage is the view's message line for a state (TreeView.message: plain text). */
export function rulesMessage(s: RulesState): string | undefined {
  return s.kind === 'unavailable' ? s.message : undefined; // an empty list shows the view's welcome text
}

/** readRules checks the server's answer is the shape the view draws; anything else is unavailable with a reason. */
export function readRules(res: unknown): RulesState {
  const r = res as Partial<RulesResult> | null;
  if (!r || typeof r !== 'object' || !Array.isArray(r.rules)) return { kind: 'unavailable', message: 'admit/rules answered something that is not a list of rules.' };
  const rules = r.rules.filter((x): x is PersonRule => !!x && typeof x === 'object' && typeof (x as PersonRule).match === 'string');
  const f = (r.files ?? {}) as RulesResult['files'];
  return { kind: 'ok', result: { rules, files: { user: typeof f.user === 'string' ? f.user : undefined, workspace: typeof f.workspace === 'string' ? f.workspace : undefined } } };
}

/** A row of the view. */
export interface RuleNode {
  rule: PersonRule;
}

export class RulesProvider implements vscode.TreeDataProvider<RuleNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RuleNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  state: RulesState = { kind: 'loading' };
  /** Set by the extension: the view whose message line says why there are no rules. */
  view?: { message?: string };
  /** Set by the extension: told each new state (it sets the admit.rulesAvailable context). */
  onState?: (s: RulesState) => void;

  constructor(private readonly request: Requester) {}

  /** refresh asks the server for the rules again. */
  async refresh(): Promise<void> {
    try {
      this.state = readRules(await this.request<RulesResult>(Methods.rules, {}));
    } catch (e) {
      this.state = {
        kind: 'unavailable',
        message: rpcCode(e) === methodNotFound ? missingMethod(Methods.rules, "the person's rules") : `admit/rules failed: ${oneLine(rpcMessage(e))}`,
      };
    }
    this.show();
  }

  /** set draws a result the server gave (admit/addRule and admit/removeRule answer with the rules). */
  set(res: unknown): void {
    this.state = readRules(res);
    this.show();
  }

  private show(): void {
    if (this.view) this.view.message = rulesMessage(this.state);
    this.onState?.(this.state);
    this.changed.fire(undefined);
  }

  get files(): RulesResult['files'] {
    return this.state.kind === 'ok' ? this.state.result.files : {};
  }

  getChildren(element?: RuleNode): RuleNode[] {
    if (element || this.state.kind !== 'ok') return [];
    return this.state.result.rules.map((rule) => ({ rule }));
  }

  getTreeItem(n: RuleNode): vscode.TreeItem {
    const { label, description } = ruleLabel(n.rule);
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.description = description;
    const ic = ruleIcons[n.rule.decision] ?? { icon: 'circle-outline', color: 'foreground' };
    item.iconPath = new vscode.ThemeIcon(ic.icon, new vscode.ThemeColor(ic.color));
    const tip = new vscode.MarkdownString(ruleTooltip(n.rule, this.files));
    tip.isTrusted = false;
    tip.supportHtml = false;
    item.tooltip = tip;
    item.contextValue = removable(n.rule) ? 'admit.rule.removable' : 'admit.rule';
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The outcome of one addRule call: the rules, or the server's objection (a -32602 names the problem). */
export type AddOutcome = { ok: true; result: RulesResult } | { ok: false; invalid: boolean; message: string };

/** addRule asks the server to add a rule and sorts its answer for the UI. */
export async function addRule(request: Requester, params: { match: string; decision: PersonRule['decision']; scope: RuleScope; note?: string; effects?: RuleEffects }): Promise<AddOutcome> {
  try {
    return { ok: true, result: await request<RulesResult>(Methods.addRule, params) };
  } catch (e) {
    if (rpcCode(e) === methodNotFound) return { ok: false, invalid: false, message: missingMethod(Methods.addRule, 'rules') };
    return { ok: false, invalid: rpcCode(e) === invalidParams, message: rpcMessage(e) };
  }
}

const decisionItems: (vscode.QuickPickItem & { value: PersonRule['decision'] })[] = [
  { label: 'allow', description: 'run without asking (never what the policy refuses outright)', value: 'allow' },
  { label: 'ask', description: 'always ask a person', value: 'ask' },
  { label: 'deny', description: 'always refuse', value: 'deny' },
];

/** pickScope asks where a rule goes: this workspace (first) or every workspace. */
export async function pickScope(title: string, placeHolder?: string): Promise<RuleScope | undefined> {
  // The title is the extension's own words; a rule's text goes only in the placeholder, which is drawn as plain text.
  const pick = await vscode.window.showQuickPick(
    [
      { label: 'This workspace', description: 'kept outside the repository, in your configuration', value: 'workspace' as const },
      { label: 'Every workspace', description: 'your user rules', value: 'user' as const },
    ],
    { title, placeHolder },
  );
  return pick?.value;
}

/**
 * addRuleCommand asks for the words, the decision and where it goes, then lets the
 * server judge it: a -32602 (the rule does not parse, its examples fail) is shown under
 * the words, which stay for the person to fix.
 */
export async function addRuleCommand(request: Requester, rules: RulesProvider): Promise<void> {
  const decision = await vscode.window.showQuickPick(decisionItems, { title: 'admit: add a rule (1/3): decision' });
  if (!decision) return;
  const scope = await pickScope('admit: add a rule (2/3): where');
  if (!scope) return;
  const box = vscode.window.createInputBox();
  box.title = `admit: add a rule (3/3): ${decision.value}, ${scope === 'user' ? 'every workspace' : 'this workspace'}`;
  box.prompt = "A command's leading words: `npm test`, `npm run test:*`, `Bash(git diff *)`, `git log *`";
  box.placeholder = 'npm test *';
  box.ignoreFocusOut = true;
  await new Promise<void>((done) => {
    let busy = false;
    box.onDidChangeValue(() => (box.validationMessage = undefined));
    box.onDidAccept(async () => {
      const match = box.value.trim();
      if (busy) return;
      if (!match) {
        box.validationMessage = 'Give the words a command starts with.';
        return;
      }
      busy = true;
      box.busy = true;
      const r = await addRule(request, { match, decision: decision.value, scope });
      busy = false;
      box.busy = false;
      if (r.ok) {
        rules.set(r.result);
        box.hide();
        void vscode.window.showInformationMessage(plain(`admit: added the rule ${decision.value} ${match} (${scope === 'user' ? 'every workspace' : 'this workspace'}).`));
      } else if (r.invalid) {
        box.validationMessage = oneLine(r.message); // the server names the problem
      } else {
        box.hide();
        void vscode.window.showWarningMessage(plain(`admit: ${r.message}`));
      }
    });
    box.onDidHide(() => {
      box.dispose();
      done();
    });
    box.show();
  });
}

/** removeRuleCommand removes one of the person's rules, after asking (removing a deny or ask rule loosens the gate). */
export async function removeRuleCommand(request: Requester, rules: RulesProvider, node: RuleNode | undefined): Promise<void> {
  const r = node?.rule;
  if (!r) {
    void vscode.window.showInformationMessage('admit: choose a rule in the Rules view to remove it.');
    return;
  }
  if (!removable(r)) {
    void vscode.window.showInformationMessage(plain(`admit: the rule ${r.match} comes ${sourceWords(r.source)}; it is not one of your rules, so it is changed where it is written.`));
    return;
  }
  const loosens = r.decision !== 'allow';
  const choice = await vscode.window.showWarningMessage(
    plain(`admit: remove the rule ${r.decision} ${r.match}?`),
    { modal: true, detail: loosens ? `Removing a rule that says ${r.decision} loosens the gate: such calls are judged by the policy alone again.` : 'Such calls will be asked again (or judged by the policy alone).' },
    'Keep',
    'Remove',
  );
  if (choice !== 'Remove') return;
  try {
    rules.set(await request<RulesResult>(Methods.removeRule, { match: r.match, decision: r.decision, scope: r.source }));
  } catch (e) {
    const message = rpcCode(e) === methodNotFound ? missingMethod(Methods.removeRule, 'rules') : `${Methods.removeRule} failed: ${rpcMessage(e)}`;
    void vscode.window.showWarningMessage(plain(`admit: ${message}`));
  }
}

/** openRulesFile opens the person's rules file (user or workspace). */
export async function openRulesFile(rules: RulesProvider): Promise<void> {
  if (rules.state.kind !== 'ok') await rules.refresh();
  if (rules.state.kind === 'unavailable') {
    void vscode.window.showWarningMessage(plain(`admit: ${rules.state.message}`));
    return;
  }
  const f = rules.files;
  type Item = vscode.QuickPickItem & { path: string };
  const items: Item[] = [];
  if (f.workspace) items.push({ label: 'This workspace', description: pickText(f.workspace), path: f.workspace });
  if (f.user) items.push({ label: 'Every workspace (user)', description: pickText(f.user), path: f.user });
  if (!items.length) {
    void vscode.window.showInformationMessage('admit: the server named no rules file.');
    return;
  }
  const pick = items.length === 1 ? items[0] : await vscode.window.showQuickPick(items, { title: 'admit: open a rules file' });
  if (!pick) return;
  try {
    await vscode.window.showTextDocument(vscode.Uri.file(pick.path), { preview: false });
  } catch {
    void vscode.window.showInformationMessage(plain(`admit: there is no rules file at ${pick.path} yet; add a rule first.`));
  }
}
