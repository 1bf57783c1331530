// The decisions view: recent decisions from admit/didDecide, newest first: each row
// its time, outcome (icon, colour and words), tool, agent and call.
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

/**
 * How a decision is drawn, finer than its class: an asked call shows how the question
 * ended (allowed by a person or an earlier grant, denied by the person, or unanswered).
 */
export type DecisionLook = 'allowed' | 'approved' | 'denied' | 'unanswered' | 'refused' | 'would-deny';

/** lookOf says how a decision is drawn. */
export function lookOf(d: Decision): DecisionLook {
  const cls = classify(d);
  if (cls !== 'asked') return cls;
  if (d.verdict === 'allow') return 'approved';
  return d.decidedBy === 'person' || (d.decidedBy === undefined && d.rule === 'human-denied') ? 'denied' : 'unanswered';
}

/** Each look's icon and colour: each differs from the others in both. */
export const lookIcons: Record<DecisionLook, { icon: string; color: string }> = {
  allowed: { icon: 'pass', color: 'testing.iconPassed' },
  approved: { icon: 'person', color: 'charts.blue' },
  denied: { icon: 'person', color: 'charts.red' },
  unanswered: { icon: 'watch', color: 'charts.orange' },
  refused: { icon: 'error', color: 'errorForeground' },
  'would-deny': { icon: 'warning', color: 'editorWarning.foreground' },
};

const unanswered: Record<string, string> = {
  timeout: 'no answer in time',
  cancelled: 'withdrawn',
  'session-closed': 'session closed',
  shutdown: 'server stopped',
  disconnected: 'editor gone',
  headless: 'nobody to ask',
};

/** lookWords is the outcome in words, e.g. "asked: you allowed", "refused". */
export function lookWords(d: Decision): string {
  switch (lookOf(d)) {
    case 'allowed':
      return 'allowed';
    case 'refused':
      return 'refused';
    case 'would-deny':
      return 'would-deny';
    case 'approved':
      return d.decidedBy === 'grant' ? 'asked: allowed for the session' : 'asked: you allowed';
    case 'denied':
      return 'asked: you denied';
    case 'unanswered':
      return `asked: ${unanswered[String(d.decidedBy)] ?? 'not answered'}`;
  }
}

/** agentOf is who made the call: the agent its context names, else its session. */
export function agentOf(d: Decision): string | undefined {
  return namedAgent(d) ?? (d.session && d.session !== 'default' ? `session ${d.session}` : undefined);
}

/** namedAgent is the agent the decision names (its own field, or its context's), if any. */
function namedAgent(d: Decision): string | undefined {
  const ctx = (d as { context?: { agent?: unknown } }).context;
  if (typeof d.agent === 'string' && d.agent) return d.agent;
  return typeof ctx?.agent === 'string' && ctx.agent ? ctx.agent : undefined;
}

/** clock is a decision's time of day, HH:MM:SS local, or '' when it has none. */
export function clock(time: string | undefined): string {
  if (!time) return '';
  const t = new Date(time);
  if (Number.isNaN(t.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(t.getHours())}:${p(t.getMinutes())}:${p(t.getSeconds())}`;
}

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

  /** add keeps d, newest first, stamped with the time it arrived when the server gave none. */
  add(d: Decision): void {
    if (!d.time) d = { ...d, time: new Date().toISOString() };
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

  /** annotate adds the agent to a decision the extension learnt it for (a call made through its API). */
  annotate(id: string, agent: string): boolean {
    const i = this.items.findIndex((d) => d.id === id);
    if (i < 0 || namedAgent(this.items[i]) !== undefined) return false;
    this.items[i] = { ...this.items[i], agent };
    return true;
  }

  clear(): void {
    this.items = [];
  }
}

/** cut keeps a label short; the tooltip and the page hold the whole text. */
function cut(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/**
 * decisionLabel is the row's label and description, plain text, each on one line. What
 * must not be cut comes first and is short: the time and the outcome in the label; then
 * the tool, the agent and the call in the description (cut by the view when narrow;
 * the tooltip has them whole).
 */
export function decisionLabel(d: Decision): { label: string; description: string } {
  const time = clock(d.time);
  const label = `${time ? `${time} ` : ''}${lookWords(d)}`;
  const agent = agentOf(d);
  const parts = [cut(oneLine(d.tool || '(no tool)'), 40), agent && cut(oneLine(agent), 40), d.summary && cut(oneLine(d.summary), 300)].filter(Boolean);
  return { label, description: parts.join(' · ') };
}

/** At most this many targets are listed in a tooltip. */
const maxTargets = 20;

/** decisionTooltip is the row's tooltip, Markdown in which every text the server passed on is literal. */
export function decisionTooltip(d: Decision): string {
  const agent = agentOf(d);
  const time = clock(d.time);
  const lines = [
    `**${mdText(lookWords(d))}** ${mdCode(d.tool ?? '')} — rule ${mdCode(d.rule ?? '')}, mode ${mdCode(d.mode ?? '')}${d.decidedBy && d.decidedBy !== 'rule' ? `, decided by ${mdCode(d.decidedBy)}` : ''}`,
  ];
  if (time || agent) lines.push('', [time && `at ${mdText(time)}`, agent && `by ${mdCode(agent)}`].filter(Boolean).join(' '));
  if (d.summary) lines.push('', mdCode(d.summary));
  if (d.reason) lines.push('', mdText(d.reason));
  const targets = d.targets ?? [];
  if (targets.length) {
    const shown = targets.slice(0, maxTargets).map(mdCode).join(', ');
    lines.push('', `Targets: ${shown}${targets.length > maxTargets ? `, and ${targets.length - maxTargets} more` : ''}`);
  }
  if (d.remedy) lines.push('', `Remedy: ${renderProse(prose(d.remedy))}`);
  lines.push('', 'Click for the whole decision.');
  return lines.join('\n');
}

/**
 * A node of the view that is not a decision (the agents, above the decisions): drawn by
 * whoever made it. `id` keeps it apart from the decisions' ids.
 */
export interface ExtraNode {
  readonly extra: true;
  readonly id?: string;
  item(): vscode.TreeItem;
  children?(): ExtraNode[];
}

export type DecisionsNode = Decision | ExtraNode;

function isExtra(n: DecisionsNode): n is ExtraNode {
  return (n as ExtraNode).extra === true;
}

export class DecisionsProvider implements vscode.TreeDataProvider<DecisionsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<DecisionsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private head: ExtraNode[] = [];

  constructor(readonly store: DecisionStore) {}

  add(d: Decision): void {
    this.store.add(d);
    this.changed.fire(undefined);
  }

  /** setHead puts nodes above the decisions (the agents); [] takes them away. */
  setHead(nodes: ExtraNode[]): void {
    this.head = nodes;
    this.changed.fire(undefined);
  }

  setFilter(f: DecisionFilter | undefined): void {
    this.store.filter = f;
    this.changed.fire(undefined);
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  annotate(id: string, agent: string): void {
    if (this.store.annotate(id, agent)) this.changed.fire(undefined);
  }

  getChildren(element?: DecisionsNode): DecisionsNode[] {
    if (!element) return [...this.head, ...this.store.visible()];
    return isExtra(element) ? element.children?.() ?? [] : [];
  }

  getTreeItem(n: DecisionsNode): vscode.TreeItem {
    if (isExtra(n)) return n.item();
    const d = n;
    const { label, description } = decisionLabel(d);
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = d.id;
    item.description = description;
    const cls = classify(d);
    const ic = lookIcons[lookOf(d)];
    item.iconPath = new vscode.ThemeIcon(ic.icon, new vscode.ThemeColor(ic.color));
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
