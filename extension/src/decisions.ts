// The decisions view: recent decisions from admit/didDecide, newest first.
import * as vscode from 'vscode';
import type { Decision } from './protocol';
import { mdCode, mdText, oneLine, prose, renderProse } from './text';

/** The four ways a decision is drawn. */
export type DecisionClass = 'allowed' | 'refused' | 'would-deny' | 'asked';

/** Who settles an asked call (approvals' By* values); `rule` and `tape` settle nothing that was asked. */
const askers = new Set(['person', 'grant', 'timeout', 'cancelled', 'session-closed', 'shutdown', 'disconnected', 'headless']);
/** The rules an asked call ends with, for records written before `outcome` and `decidedBy` existed. */
const askedRules = new Set(['human-approved', 'human-denied', 'approval-timeout', 'approval-cancelled', 'no-approver']);

/**
 * classify says how a decision is drawn, from what the server says: asked (the policy
 * asked, and a person answered or the question ended unanswered), allowed, would-deny
 * (warn mode let a refused or asked call through), refused. It reads `outcome` and
 * `decidedBy`; only a record without them (an old tape) is classified by its rule.
 */
export function classify(d: Pick<Decision, 'verdict' | 'allowed' | 'rule' | 'outcome' | 'decidedBy'>): DecisionClass {
  if (d.outcome !== undefined) {
    if (d.outcome === 'ask' && d.decidedBy !== undefined && d.decidedBy !== 'rule') return 'asked';
  } else if (d.decidedBy !== undefined ? askers.has(d.decidedBy) : askedRules.has(d.rule)) {
    return 'asked';
  }
  if (d.verdict === 'allow') return 'allowed';
  return d.allowed ? 'would-deny' : 'refused';
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
  return oneLine([f.cls, f.rule && `rule ${f.rule}`, f.tool && `tool ${f.tool}`].filter(Boolean).join(', '));
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

/** decisionLabel is the row's label and description: plain text, each on one line. */
export function decisionLabel(d: Decision): { label: string; description: string } {
  const cls = classify(d);
  const rule = d.rule && d.rule !== cls ? ` · ${d.rule}` : '';
  return { label: oneLine(d.tool || '(no tool)'), description: oneLine(`${cls}${rule}${d.summary ? ` · ${d.summary}` : ''}`) };
}

/** At most this many targets are listed in a tooltip. */
const maxTargets = 20;

/** decisionTooltip is the row's tooltip, Markdown in which every text the server passed on is literal. */
export function decisionTooltip(d: Decision): string {
  const cls = classify(d);
  const lines = [`**${cls}** ${mdCode(d.tool ?? '')} — rule ${mdCode(d.rule ?? '')}, mode ${mdCode(d.mode ?? '')}${d.decidedBy && d.decidedBy !== 'rule' ? `, decided by ${mdCode(d.decidedBy)}` : ''}`];
  if (d.summary) lines.push('', mdCode(d.summary));
  if (d.reason) lines.push('', mdText(d.reason));
  const targets = d.targets ?? [];
  if (targets.length) {
    const shown = targets.slice(0, maxTargets).map(mdCode).join(', ');
    lines.push('', `Targets: ${shown}${targets.length > maxTargets ? `, and ${targets.length - maxTargets} more` : ''}`);
  }
  if (d.remedy) lines.push('', `Remedy: ${renderProse(prose(d.remedy))}`);
  return lines.join('\n');
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
    const tooltip = new vscode.MarkdownString(decisionTooltip(d));
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    item.tooltip = tooltip;
    item.contextValue = `admit.decision.${cls}`;
    item.command = { command: 'admit.showDecision', title: 'Show Decision', arguments: [d] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
