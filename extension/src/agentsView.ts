// The agents above the decisions in the Decisions view: one row per agent (connected or
// not, stale, outdated, hooks switched off) with its last decision; a click opens that
// decision's page, or Connect Agents when there is none. Every text is one plain line
// (oneLine), every tooltip literal Markdown.
import * as vscode from 'vscode';
import { hooksOffWords, lastWords, rowWords, stateWords, type AgentRow } from './agents';
import type { ExtraNode } from './decisions';
import { mdCode, mdText, oneLine } from './text';

const rowIcons: Record<string, { icon: string; color?: string }> = {
  connected: { icon: 'plug', color: 'testing.iconPassed' },
  'not-connected': { icon: 'debug-disconnect' },
  stale: { icon: 'warning', color: 'editorWarning.foreground' },
  outdated: { icon: 'warning', color: 'editorWarning.foreground' },
  unreadable: { icon: 'error', color: 'errorForeground' },
  unsupported: { icon: 'circle-slash' },
};

/** agentTooltip is an agent row's tooltip: its state, where hooks are off, and its last decision, all literal. */
export function agentTooltip(r: AgentRow): string {
  const lines = [`**${mdText(r.name)}**${r.status ? ` — ${mdText(stateWords(r.status))}` : ' — calls admit through the editor'}`];
  if (r.status?.config) lines.push('', `Configuration: ${mdCode(r.status.config)}`);
  if (r.status?.binary) lines.push('', `Its hook runs ${mdCode(r.status.binary)}${r.status.binaryExists === false ? ' (gone)' : ''}`);
  const off = r.status && hooksOffWords(r.status);
  if (off) lines.push('', `**${mdText(off)}**`);
  if (r.status?.problem) lines.push('', mdText(r.status.problem));
  lines.push('', r.last ? `Last decision: ${mdText(lastWords(r.last))}. Click to open it.` : 'No decision yet. Click to connect agents.');
  return lines.join('\n');
}

/** agentNode is one agent's row. */
export function agentNode(r: AgentRow): ExtraNode {
  return {
    extra: true,
    id: `admit.agent:${r.key}`,
    item: () => {
      const item = new vscode.TreeItem(oneLine(r.name), vscode.TreeItemCollapsibleState.None);
      item.id = `admit.agent:${r.key}`;
      item.description = rowWords(r);
      const off = r.status && hooksOffWords(r.status);
      const ic = off ? { icon: 'circle-slash', color: 'editorWarning.foreground' } : rowIcons[String(r.status?.state)] ?? { icon: 'account' };
      item.iconPath = new vscode.ThemeIcon(ic.icon, ic.color ? new vscode.ThemeColor(ic.color) : undefined);
      const tip = new vscode.MarkdownString(agentTooltip(r));
      tip.isTrusted = false;
      tip.supportHtml = false;
      item.tooltip = tip;
      item.contextValue = `admit.agent.${r.status?.state ?? 'named'}`;
      item.command = r.last
        ? { command: 'admit.showDecision', title: 'Show Decision', arguments: [r.last] }
        : { command: 'admit.connectAgents', title: 'Connect Agents' };
      return item;
    },
  };
}

/** agentsGroup is the "Agents" node above the decisions, open, holding a row per agent; none when there is no agent to show. */
export function agentsGroup(rows: readonly AgentRow[]): ExtraNode[] {
  if (!rows.length) return [];
  const connected = rows.filter((r) => r.status?.state === 'connected').length;
  const children = rows.map(agentNode);
  return [
    {
      extra: true,
      id: 'admit.agents',
      item: () => {
        const item = new vscode.TreeItem('Agents', vscode.TreeItemCollapsibleState.Expanded);
        item.id = 'admit.agents';
        item.description = `${connected} connected`;
        item.iconPath = new vscode.ThemeIcon('organization');
        item.contextValue = 'admit.agents';
        item.tooltip = 'The agents admit knows on this machine: which are connected to admit, and each one\'s last decision.';
        return item;
      },
      children: () => children,
    },
  ];
}
