// The decisions view: recent decisions from admit/didDecide, newest first.
import * as vscode from 'vscode';
import type { Decision } from './protocol';

/** The four ways a decision is drawn. */
export type DecisionClass = 'allowed' | 'refused' | 'would-deny' | 'asked';

/** classify says how a decision is drawn: asked (a person decided or did not answer), allowed, would-deny (warn), refused. */
export function classify(d: Pick<Decision, 'verdict' | 'allowed' | 'rule'>): DecisionClass {
  if (d.rule?.startsWith('human-') || d.rule === 'approval-timeout') return 'asked';
  if (d.verdict === 'allow') return 'allowed';
  if (d.allowed) return 'would-deny';
  return 'refused';
}

export const classIcons: Record<DecisionClass, { icon: string; color?: string }> = {
  allowed: { icon: 'pass', color: 'testing.iconPassed' },
  refused: { icon: 'error', color: 'errorForeground' },
  'would-deny': { icon: 'warning', color: 'editorWarning.foreground' },
  asked: { icon: 'question' },
};

/** A filter on the list; every field set must match. */
export interface DecisionFilter {
  cls?: DecisionClass;
  rule?: string;
  tool?: string;
}

export function matches(d: Decision, f: DecisionFilter | undefined): boolean {
  if (!f) return true;
  if (f.cls && classify(d) !== f.cls) return false;
  if (f.rule && d.rule !== f.rule) return false;
  if (f.tool && d.tool !== f.tool) return false;
  return true;
}

export function describeFilter(f: DecisionFilter | undefined): string {
  if (!f) return '';
  return [f.cls, f.rule && `rule ${f.rule}`, f.tool && `tool ${f.tool}`].filter(Boolean).join(', ');
}

/** DecisionStore keeps the newest `cap` decisions, newest first. Pure, no VS Code. */
export class DecisionStore {
  private items: Decision[] = [];
  filter: DecisionFilter | undefined;

  constructor(readonly cap = 500) {}

  add(d: Decision): void {
    this.items.unshift(d);
    if (this.items.length > this.cap) this.items.length = this.cap;
  }

  /** all is every kept decision, newest first, ignoring the filter. */
  all(): readonly Decision[] {
    return this.items;
  }

  /** visible is the filtered list, newest first. */
  visible(): Decision[] {
    return this.items.filter((d) => matches(d, this.filter));
  }

  byId(id: string): Decision | undefined {
    return this.items.find((d) => d.id === id);
  }

  clear(): void {
    this.items = [];
  }
}

/** decisionLabel is the row's label: the tool, then the summary as its description. */
export function decisionLabel(d: Decision): { label: string; description: string } {
  const cls = classify(d);
  const rule = d.rule && d.rule !== cls ? ` · ${d.rule}` : '';
  return { label: d.tool || '(no tool)', description: `${cls}${rule}${d.summary ? ` · ${d.summary}` : ''}` };
}

export class DecisionsProvider implements vscode.TreeDataProvider<Decision>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Decision | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(readonly store: DecisionStore) {}

  add(d: Decision): void {
    this.store.add(d);
    this.changed.fire(undefined);
  }

  setFilter(f: DecisionFilter | undefined): void {
    this.store.filter = f;
    this.changed.fire(undefined);
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(element?: Decision): Decision[] {
    return element ? [] : this.store.visible();
  }

  getTreeItem(d: Decision): vscode.TreeItem {
    const { label, description } = decisionLabel(d);
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = d.id;
    item.description = description;
    const cls = classify(d);
    const ic = classIcons[cls];
    item.iconPath = new vscode.ThemeIcon(ic.icon, ic.color ? new vscode.ThemeColor(ic.color) : undefined);
    item.tooltip = new vscode.MarkdownString(
      `**${cls}** \`${d.tool}\` — rule \`${d.rule}\`, mode \`${d.mode}\`\n\n${d.reason ?? ''}${d.targets?.length ? `\n\nTargets: ${d.targets.map((t) => `\`${t}\``).join(', ')}` : ''}`,
    );
    item.contextValue = `admit.decision.${cls}`;
    item.command = { command: 'admit.showDecision', title: 'Show Decision', arguments: [d] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
