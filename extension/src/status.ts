// The status bar item: the server's mode, effects and counts, drawn from what the
// server pushes with admit/didChangeState. No policy here: the extension draws.
import * as vscode from 'vscode';
import { agentsTooltip, hooksOffOf, hooksOffTooltip, type AgentRow, type HooksOffInput } from './agents';
import { exportTooltip, managedStatus, managedTooltip } from './managed';
import { trustOf, trustStatus, trustTooltip } from './policyTrust';
import type { AdmitMode, AdmitState, Decision } from './protocol';
import { mdCode, mdText, plain, trustedCommands } from './text';

/** What the status item shows: the server's state, or where the client is. */
export type StatusInput =
  | { kind: 'starting' }
  | { kind: 'running'; state: AdmitState; lastDecision?: Decision; restricted?: boolean; agents?: readonly AgentRow[]; useHooksOff?: string }
  | { kind: 'stopped'; message: string };

export const modeIcons: Record<AdmitMode, string> = {
  enforce: '$(shield)',
  warn: '$(warning)',
  off: '$(circle-slash)',
};

/** statusText renders the item's text, e.g. `$(shield) admit: enforce · workspace-write · 2 pending`. Only fixed words and the server's enum values, each checked. */
export function statusText(input: StatusInput): string {
  switch (input.kind) {
    case 'starting':
      return '$(sync~spin) admit: starting';
    case 'stopped':
      return '$(error) admit: stopped';
    case 'running': {
      const s = input.state;
      const mode = known(s.mode, ['enforce', 'warn', 'off']);
      const icon = modeIcons[mode as AdmitMode] ?? '$(question)';
      const parts = [`${icon} admit: ${mode}`];
      if (s.mode !== 'off') parts.push(known(s.effects, ['read-only', 'workspace-write']));
      if (s.policyError) parts.push('$(error) policy invalid');
      else {
        const trust = trustStatus(s);
        if (trust) parts.push(trust);
      }
      if (s.tapeError) parts.push('$(error) tape unwritable');
      parts.push(...managedStatus(s));
      if (hooksOff(input)) parts.push('$(warning) hooks off');
      const pending = s.counts?.pending ?? 0;
      if (pending > 0) parts.push(`${count(pending)} pending`);
      const wouldDeny = s.counts?.wouldDeny ?? 0;
      if (s.mode === 'warn' && wouldDeny > 0) parts.push(`${count(wouldDeny)} would-deny`);
      return parts.join(' · ');
    }
  }
}

/** hooksOff is where the agents' hooks are switched off in this workspace: the server's files, and VS Code's chat.useHooks. */
export function hooksOff(input: StatusInput): HooksOffInput | undefined {
  if (input.kind !== 'running') return undefined;
  const h = { files: hooksOffOf(input.state.hooksOff), useHooksOff: input.useHooksOff };
  return h.files.length || h.useHooksOff ? h : undefined;
}

/** known keeps a value the protocol defines and shows anything else as `?`: the status text has no room for escapes. */
function known(v: unknown, values: readonly string[]): string {
  return typeof v === 'string' && values.includes(v) ? v : '?';
}

function count(n: unknown): string {
  return typeof n === 'number' && Number.isFinite(n) ? String(Math.trunc(n)) : '?';
}

/** A tooltip: Markdown, and the commands of the extension's own links in it (the only ones trusted). */
export interface Tooltip {
  markdown: string;
  commands: string[];
}

/** statusTooltip renders the tooltip: roots, tape, counts, errors and the last decision, every text from the server literal. */
export function statusTooltip(input: StatusInput): Tooltip {
  switch (input.kind) {
    case 'starting':
      return { markdown: 'admit: starting the server…', commands: [] };
    case 'stopped':
      return {
        markdown: `admit: the server is stopped. ${mdText(input.message)}\n\n[Restart](command:admit.restartServer)`,
        commands: ['admit.restartServer'],
      };
    case 'running': {
      const s = input.state;
      const lines = [
        `**admit** — mode ${mdCode(String(s.mode))}, effects ${mdCode(String(s.effects))}, shell ${mdCode(String(s.shell))}`,
      ];
      if (input.restricted) {
        lines.push('', 'Restricted Mode: this workspace is not trusted, so the gate runs in enforce and read-only until you trust it.');
      }
      const commands: string[] = [];
      if (s.policyError) {
        lines.push('', `**The policy file cannot be used**${s.policy && s.policy !== 'built-in' ? ` (${mdCode(s.policy)})` : ''}: ${mdText(s.policyError)}`);
      } else {
        const t = trustTooltip(s);
        if (t) {
          lines.push('', t.markdown);
          commands.push(...t.commands);
        }
      }
      if (s.tapeError) lines.push('', `**The tape cannot be written**: ${mdText(s.tapeError)}`);
      const managed = managedTooltip(s);
      if (managed) lines.push('', managed);
      const exported = exportTooltip(s);
      if (exported) lines.push('', exported);
      const off = hooksOff(input);
      if (off) lines.push('', hooksOffTooltip(off)!);
      if (input.agents) {
        const a = agentsTooltip(input.agents);
        lines.push('', a.markdown);
        commands.push(...a.commands);
      }
      lines.push(
        '',
        'Roots:',
        ...(s.roots?.length ? s.roots.map((r) => `- ${mdCode(r)}`) : ['- (none: nothing may be written)']),
        '',
        `Allowed ${count(s.counts?.allowed ?? 0)} · denied ${count(s.counts?.denied ?? 0)} · would-deny ${count(s.counts?.wouldDeny ?? 0)} · pending ${count(s.counts?.pending ?? 0)}`,
      );
      if (s.tape) lines.push('', `Tape: ${mdCode(s.tape)}`);
      const d = input.lastDecision;
      if (d) {
        lines.push('', `Last: ${mdText(String(d.verdict))} ${mdCode(d.tool ?? '')}${d.summary ? ` ${mdCode(d.summary)}` : ''} — ${mdCode(d.rule ?? '')}`);
      }
      lines.push('', (s.counts?.pending ?? 0) > 0 ? 'Click to see the question that waits for you.' : 'Click to change the mode and effects.');
      return { markdown: lines.join('\n'), commands };
    }
  }
}

/**
 * errorNotices are the notifications for a policy file or a tape that cannot be used:
 * plain text (the error quotes the repository's file), one line, no link syntax.
 */
export function errorNotices(st: AdmitState): { policy?: string; tape?: string } {
  const out: { policy?: string; tape?: string } = {};
  if (typeof st.policyError === 'string' && st.policyError) {
    const file = typeof st.policy === 'string' && st.policy && st.policy !== 'built-in' ? ` ${st.policy}` : '';
    out.policy = plain(`admit: the policy file${file} cannot be used, so every call is refused (policy-invalid) until it is fixed: ${st.policyError}`);
  }
  if (typeof st.tapeError === 'string' && st.tapeError) {
    out.tape = plain(`admit: the tape cannot be written, so in enforce mode every call is refused: ${st.tapeError}`);
  }
  return out;
}

/** statusCommand is what a click does: open the question that waits (even with notifications silenced), restart a stopped server, or choose the mode. */
export function statusCommand(input: StatusInput): string {
  if (input.kind === 'stopped') return 'admit.restartServer';
  if (input.kind === 'running' && (input.state.counts?.pending ?? 0) > 0) return 'admit.showApproval';
  return 'admit.selectMode';
}

/** StatusBar owns the one status item and redraws it on every change it is told about. */
export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private input: StatusInput = { kind: 'starting' };
  private last?: Decision;
  private restricted = false;
  private agents?: readonly AgentRow[];
  private useHooksOff?: string;

  constructor() {
    this.item = vscode.window.createStatusBarItem('admit.status', vscode.StatusBarAlignment.Left, 100);
    this.item.name = 'admit';
    this.render();
    this.item.show();
  }

  get current(): StatusInput {
    return this.input;
  }

  setStarting(): void {
    this.input = { kind: 'starting' };
    this.render();
  }

  setState(state: AdmitState): void {
    this.input = { kind: 'running', state, lastDecision: this.last, restricted: this.restricted, agents: this.agents, useHooksOff: this.useHooksOff };
    this.render();
  }

  /** setAgents redraws the agents' part: which are connected, and each one's last decision. */
  setAgents(rows: readonly AgentRow[]): void {
    this.agents = rows;
    if (this.input.kind === 'running') {
      this.input = { ...this.input, agents: rows };
      this.render();
    }
  }

  /** setUseHooksOff says where VS Code's chat.useHooks is false (undefined: it is not). */
  setUseHooksOff(where: string | undefined): void {
    this.useHooksOff = where;
    if (this.input.kind === 'running') {
      this.input = { ...this.input, useHooksOff: where };
      this.render();
    }
  }

  /** setRestricted says whether the workspace is in Restricted Mode (not trusted). */
  setRestricted(restricted: boolean): void {
    this.restricted = restricted;
    if (this.input.kind === 'running') {
      this.input = { ...this.input, restricted };
      this.render();
    }
  }

  setStopped(message: string): void {
    this.input = { kind: 'stopped', message };
    this.render();
  }

  setLastDecision(d: Decision): void {
    this.last = d;
    if (this.input.kind === 'running') {
      this.input = { ...this.input, lastDecision: d };
      this.render();
    }
  }

  private render(): void {
    const i = this.input;
    this.item.text = statusText(i);
    const t = statusTooltip(i);
    const md = new vscode.MarkdownString(t.markdown);
    md.isTrusted = trustedCommands(t.commands);
    md.supportHtml = false;
    this.item.tooltip = md;
    this.item.command = statusCommand(i);
    this.item.backgroundColor =
      i.kind === 'stopped' || (i.kind === 'running' && (i.state.policyError || i.state.tapeError))
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : i.kind === 'running' && ((i.state.counts?.pending ?? 0) > 0 || trustOf(i.state) === 'untrusted' || hooksOff(i))
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
