// The status bar item: the server's mode, effects and counts, drawn from what the
// server pushes with admit/didChangeState. No policy here: the extension draws.
import * as vscode from 'vscode';
import type { AdmitMode, AdmitState, Decision } from './protocol';

/** What the status item shows: the server's state, or where the client is. */
export type StatusInput =
  | { kind: 'starting' }
  | { kind: 'running'; state: AdmitState; lastDecision?: Decision }
  | { kind: 'stopped'; message: string };

export const modeIcons: Record<AdmitMode, string> = {
  enforce: '$(shield)',
  warn: '$(warning)',
  off: '$(circle-slash)',
};

/** statusText renders the item's text, e.g. `$(shield) admit: enforce · workspace-write · 2 pending`. */
export function statusText(input: StatusInput): string {
  switch (input.kind) {
    case 'starting':
      return '$(sync~spin) admit: starting';
    case 'stopped':
      return '$(error) admit: stopped';
    case 'running': {
      const s = input.state;
      const icon = modeIcons[s.mode] ?? '$(question)';
      const parts = [`${icon} admit: ${s.mode}`];
      if (s.mode !== 'off') parts.push(s.effects);
      const pending = s.counts?.pending ?? 0;
      if (pending > 0) parts.push(`${pending} pending`);
      const wouldDeny = s.counts?.wouldDeny ?? 0;
      if (s.mode === 'warn' && wouldDeny > 0) parts.push(`${wouldDeny} would-deny`);
      return parts.join(' · ');
    }
  }
}

/** statusTooltip renders the tooltip as Markdown: roots, tape, counts and the last decision. */
export function statusTooltip(input: StatusInput): string {
  switch (input.kind) {
    case 'starting':
      return 'admit: starting the server…';
    case 'stopped':
      return `admit: the server is stopped. ${input.message}\n\n[Restart](command:admit.restartServer)`;
    case 'running': {
      const s = input.state;
      const lines = [
        `**admit** — mode \`${s.mode}\`, effects \`${s.effects}\`, shell \`${s.shell}\``,
        '',
        'Roots:',
        ...(s.roots?.length ? s.roots.map((r) => `- \`${r}\``) : ['- (none: nothing may be written)']),
        '',
        `Allowed ${s.counts?.allowed ?? 0} · denied ${s.counts?.denied ?? 0} · would-deny ${s.counts?.wouldDeny ?? 0} · pending ${s.counts?.pending ?? 0}`,
      ];
      if (s.tape) lines.push('', `Tape: \`${s.tape}\``);
      const d = input.lastDecision;
      if (d) {
        lines.push('', `Last: ${d.verdict} \`${d.tool}\`${d.summary ? ` ${d.summary}` : ''} — \`${d.rule}\``);
      }
      lines.push('', 'Click to change the mode and effects.');
      return lines.join('\n');
    }
  }
}

/** statusCommand is what a click does: choose the mode, or restart a stopped server. */
export function statusCommand(input: StatusInput): string {
  return input.kind === 'stopped' ? 'admit.restartServer' : 'admit.selectMode';
}

/** StatusBar owns the one status item and redraws it on every change it is told about. */
export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private input: StatusInput = { kind: 'starting' };
  private last?: Decision;

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
    this.input = { kind: 'running', state, lastDecision: this.last };
    this.render();
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
    const md = new vscode.MarkdownString(statusTooltip(i));
    md.isTrusted = true;
    this.item.tooltip = md;
    this.item.command = statusCommand(i);
    this.item.backgroundColor =
      i.kind === 'stopped'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : i.kind === 'running' && (i.state.counts?.pending ?? 0) > 0
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
