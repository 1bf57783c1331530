// The agents admit connects (docs/agents.md) as the editor shows them: each one's
// state in words, the pick list of "admit: Connect Agents", the question asked before
// a configuration is written, the diff's titles, and which agents are connected with
// each one's last decision (the status bar tooltip, the decisions view). Pure. The
// server's words quote the person's files (paths, parse errors), so every text is
// escaped for its surface.
import type { AgentChange, AgentStatus, AgentsResult, Decision } from './protocol';
import { clock, lookWords } from './decisions';
import { mdCode, mdText, oneLine, pickText, plain } from './text';

/** Which way a change goes. */
export type Direction = 'connect' | 'disconnect';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** agentName is the product's name with its adapter's, e.g. "Claude Code (claude-code)". Raw text. */
export function agentName(a: Pick<AgentStatus, 'agent' | 'host'>): string {
  const product = str(a.agent);
  return product && product !== a.host ? `${product} (${a.host})` : String(a.host);
}

/** stateWords says an agent's connection in a few words. Raw text: each surface escapes it. */
export function stateWords(a: AgentStatus): string {
  switch (a.state) {
    case 'connected':
      return str(a.inert) ? `connected, ${str(a.inert)}: inert` : 'connected';
    case 'not-connected':
      return a.installed ? 'not connected' : 'not found on this machine';
    case 'stale':
      return `stale: its hook runs ${a.binary ?? 'a binary'}, which is gone`;
    case 'outdated':
      return "outdated: admit's entries are there, but not as admit writes them";
    case 'unreadable':
      return 'unreadable: its configuration does not parse, so admit changes nothing in it';
    case 'unsupported':
      return 'unsupported on this system: set it up by hand';
    default:
      return `state ${String(a.state)}`;
  }
}

/** hooksOffWords says that the person's own settings switch the agent's hooks off, admit's included. */
export function hooksOffWords(a: AgentStatus): string | undefined {
  const off = str(a.hooksOff);
  return off ? `hooks switched off by your settings: ${off}` : undefined;
}

/** What a pick of "admit: Connect Agents" offers for an agent: a change to show, or only words. */
export interface AgentPick {
  host: string;
  label: string;
  description: string;
  detail?: string;
  /** The change the pick shows and, on a yes, writes; none: the pick only says why. */
  change?: AgentChange;
  direction: Direction;
}

const icons: Record<string, string> = {
  connected: '$(pass-filled)',
  'not-connected': '$(debug-disconnect)',
  stale: '$(warning)',
  outdated: '$(warning)',
  unreadable: '$(error)',
  unsupported: '$(circle-slash)',
};

/**
 * agentPicks lists the agents for a Quick Pick: for connect, every agent (installed
 * ones first), each with the change that connects it or mends it; for disconnect, the
 * agents that hold admit's entries, each with the change that takes them out. Labels
 * and descriptions are pickText (one line, `$(` split), after the pick's own icon.
 */
export function agentPicks(r: AgentsResult, direction: Direction): AgentPick[] {
  const agents = Array.isArray(r.agents) ? r.agents.filter((a) => a && typeof a.host === 'string') : [];
  const out: AgentPick[] = [];
  for (const a of agents) {
    const change = direction === 'connect' ? a.change : a.undo;
    if (direction === 'disconnect' && !change) continue;
    const notes = [hooksOffWords(a), str(a.inertWhy), str(a.problem)].filter((x): x is string => !!x);
    const what =
      direction === 'disconnect'
        ? `take admit's entries out of ${(change?.files ?? []).map((f) => f.path).join(', ')}`
        : change
          ? `${a.state === 'connected' ? 'mend' : 'write'} ${change.files.map((f) => f.path).join(', ')}`
          : a.state === 'connected'
            ? 'nothing to change'
            : undefined;
    out.push({
      host: a.host,
      label: `${icons[a.state] ?? '$(question)'} ${pickText(agentName(a))}`,
      description: pickText(stateWords(a)),
      detail: [what, ...notes].filter((x): x is string => !!x).map(pickText).join(' · ') || undefined,
      change,
      direction,
    });
  }
  const rank = (p: AgentPick) => {
    const a = agents.find((x) => x.host === p.host);
    return a?.installed || a?.state !== 'not-connected' ? 0 : 1;
  };
  return out.sort((x, y) => rank(x) - rank(y));
}

/** The dialog's buttons. The first is the default (Enter), and it writes nothing. */
export const connectButtons = {
  connect: { keep: "Don't connect", yes: 'Connect' },
  disconnect: { keep: 'Keep connected', yes: 'Disconnect' },
} as const;

/**
 * changeDialog is the modal question asked while the diff is open: plain text on every
 * line, the files named whole, never Connect by default.
 */
export function changeDialog(a: AgentStatus, change: AgentChange, binary: string, direction: Direction): { message: string; detail: string; buttons: string[] } {
  const b = connectButtons[direction];
  const files = change.files.map((f) => `• ${plain(f.path)}${f.created ? ' (a new file)' : ''}${f.removed ? ' (removed)' : ''}${f.mode ? ` (mode ${plain(f.mode)})` : ''}`);
  if (direction === 'disconnect') {
    return {
      message: plain(`admit: disconnect ${agentName(a)}?`),
      detail: [
        `admit's entries come out of:`,
        ...files,
        '',
        `After this, ${plain(agentName(a))} runs its tools without asking admit. A file admit created is removed; any other gets its bytes back, with your own settings as they are. The diff is open beside.`,
      ].join('\n'),
      buttons: [b.keep, b.yes],
    };
  }
  const lines = [
    `admit writes its hook into your own configuration, so that ${plain(agentName(a))} asks admit before every tool call:`,
    ...files,
    '',
    `The hook runs ${plain(binary)} (the copy the extension installed, outside every workspace). Only admit's entries are added; every other byte of the file stays. A file that exists is copied to FILE.admit-backup first.`,
  ];
  const missing = str(a.missingBinary);
  if (missing) lines.push('', `If that binary is ever gone: ${plain(missing)}.`);
  const off = hooksOffWords(a);
  if (off) lines.push('', `Note: ${plain(off)}.`);
  for (const n of Array.isArray(a.notes) ? a.notes : []) if (typeof n === 'string') lines.push('', plain(n));
  lines.push('', 'The diff is open beside. Undo it any time with "admit: Disconnect Agent".');
  return { message: plain(`admit: connect ${agentName(a)}?`), detail: lines.join('\n'), buttons: [b.keep, b.yes] };
}

/** diffTitle is a diff editor's title: plain (a title is never parsed), the file's last parts. */
export function diffTitle(a: AgentStatus, file: string, direction: Direction): string {
  const name = file.split(/[\\/]/).slice(-2).join('/');
  return plain(`admit: ${direction} ${agentName(a)}: ${name} (now ↔ after)`);
}

/** docName is the name of a diff side's read-only document: plain text, so nothing in it is acted on (a `$schema` in JSON would be fetched). */
export function docName(file: string, side: 'now' | 'after'): string {
  const base = (file.split(/[\\/]/).pop() || 'file').replace(/[^A-Za-z0-9._-]/g, '_');
  return `${side}-${base}.txt`;
}

/** isChangedSinceShown says whether a connect error means the file changed after the change was shown: show it again. */
export function isChangedSinceShown(message: string): boolean {
  return /^sum:|changed since the change was shown/.test(message);
}

/** One agent as the tooltip and the decisions view show it: its status (from the survey) and its last decision. */
export interface AgentRow {
  name: string;
  /** The adapter's name, or the agent a decision named. */
  key: string;
  status?: AgentStatus;
  last?: Decision;
}

/**
 * AgentBook keeps the last admit/agents survey and each agent's last decision, and
 * lists the agents worth showing: those installed, connected or holding admit's
 * entries, and every other agent a decision named (an API caller, the editor's tools).
 */
export class AgentBook {
  private survey: AgentStatus[] = [];
  private readonly last = new Map<string, Decision>();
  /** At most this many agents named only by decisions are kept. */
  static readonly maxNamed = 20;

  setSurvey(r: AgentsResult | undefined): void {
    this.survey = Array.isArray(r?.agents) ? r!.agents.filter((a) => a && typeof a.host === 'string') : [];
  }

  /** update replaces one agent's status (after a connect or disconnect). */
  update(s: AgentStatus): void {
    const i = this.survey.findIndex((a) => a.host === s.host);
    if (i >= 0) this.survey[i] = s;
    else this.survey.push(s);
  }

  /** decided keeps d as its agent's last decision. */
  decided(d: Decision): void {
    const agent = str(d.agent);
    if (!agent) return;
    this.last.delete(agent);
    this.last.set(agent, d);
    if (this.last.size > AgentBook.maxNamed + this.survey.length) this.last.delete(this.last.keys().next().value as string);
  }

  get surveyed(): readonly AgentStatus[] {
    return this.survey;
  }

  rows(): AgentRow[] {
    const out: AgentRow[] = [];
    for (const a of this.survey) {
      if (!a.installed && a.state === 'not-connected' && !this.last.has(a.host)) continue;
      out.push({ name: agentName(a), key: a.host, status: a, last: this.last.get(a.host) });
    }
    for (const [agent, d] of [...this.last.entries()].reverse()) {
      if (!this.survey.some((a) => a.host === agent)) out.push({ name: agent, key: agent, last: d });
    }
    return out;
  }
}

/** lastWords is a last decision in a few words: its outcome, tool and call, and time. Raw text. */
export function lastWords(d: Decision): string {
  const time = clock(d.time);
  const call = str(d.summary);
  return `${lookWords(d)} ${d.tool ?? ''}${call ? ` ${call.length > 80 ? `${call.slice(0, 79)}…` : call}` : ''}${time ? ` at ${time}` : ''}`;
}

/** rowWords is an agent's row in one line (the view's description): its state, then its last decision. Raw text, one line. */
export function rowWords(r: AgentRow): string {
  const parts: string[] = [];
  if (r.status) parts.push(stateWords(r.status));
  else parts.push('calls through the editor');
  if (r.status && hooksOffWords(r.status)) parts.push('hooks off');
  parts.push(r.last ? `last: ${lastWords(r.last)}` : 'no decision yet');
  return oneLine(parts.join(' · '));
}

/** agentsTooltip is the tooltip's paragraph on the agents, Markdown with every text literal; it links to Connect Agents (the only command it trusts). */
export function agentsTooltip(rows: readonly AgentRow[]): { markdown: string; commands: string[] } {
  const lines = rows.map((r) => {
    const state = r.status ? mdText(stateWords(r.status)) : 'calls through the editor';
    const off = r.status && hooksOffWords(r.status) ? ` — ${mdText(hooksOffWords(r.status)!)}` : '';
    const last = r.last ? ` — last: ${mdText(lookWords(r.last))} ${mdCode(r.last.tool ?? '')}${str(r.last.summary) ? ` ${mdCode(r.last.summary!)}` : ''}${clock(r.last.time) ? ` at ${clock(r.last.time)}` : ''}` : '';
    return `- ${mdCode(r.name)}: ${state}${off}${last}`;
  });
  const anyLeft = rows.some((r) => r.status && r.status.state !== 'connected' && r.status.state !== 'unsupported');
  const head = rows.length ? '**Agents**' : '**Agents**: none found for this user.';
  return {
    markdown: [head, '', ...lines, ...(anyLeft || !rows.length ? ['', '[Connect Agents](command:admit.connectAgents)'] : [])].join('\n'),
    commands: anyLeft || !rows.length ? ['admit.connectAgents'] : [],
  };
}

/** Where hooks are off: the repository's files (State.hooksOff) and VS Code's chat.useHooks. */
export interface HooksOffInput {
  files: { agent: string; file: string; setting: string }[];
  /** Where chat.useHooks is false (e.g. "the workspace's settings"), if it is. */
  useHooksOff?: string;
}

/** hooksOffOf reads State.hooksOff, strings only. */
export function hooksOffOf(v: unknown): HooksOffInput['files'] {
  if (!Array.isArray(v)) return [];
  return v.filter((x) => x && typeof x === 'object' && typeof x.agent === 'string' && typeof x.file === 'string').map((x) => ({ agent: x.agent, file: x.file, setting: typeof x.setting === 'string' ? x.setting : '' }));
}

/** hooksOffTooltip is the tooltip's warning when hooks are off, Markdown with every text literal. */
export function hooksOffTooltip(h: HooksOffInput): string | undefined {
  const lines: string[] = [];
  for (const f of h.files) lines.push(`- ${mdCode(f.agent)}: ${mdCode(f.file)} sets ${mdCode(f.setting || 'its hooks off')}`);
  if (h.useHooksOff) lines.push(`- VS Code: ${mdCode('chat.useHooks')} is ${mdCode('false')} in ${mdText(h.useHooksOff)}, so Copilot's Local harness runs no hook`);
  if (!lines.length) return undefined;
  return ["**Agents' hooks are switched off here**, so admit's hook is never called for these agents and their tool calls are not gated:", '', ...lines].join('\n');
}

/** hooksOffNotice is the one-line notification when hooks become switched off. Plain text. */
export function hooksOffNotice(h: HooksOffInput): string {
  const where = [...h.files.map((f) => `${f.file} (${f.agent}: ${f.setting})`), ...(h.useHooksOff ? [`chat.useHooks false in ${h.useHooksOff}`] : [])];
  return plain(`admit: agents' hooks are switched off here, so their tool calls do not reach admit: ${where.join('; ')}.`);
}

/**
 * useHooksOffWhere says where VS Code's chat.useHooks is false, from its settings
 * layers (most specific first), when that is the value in force; undefined when hooks
 * are on or the setting is unknown to this VS Code.
 */
export function useHooksOffWhere(l: { defaultValue?: unknown; globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown } | undefined): string | undefined {
  if (!l) return undefined;
  const layers: [unknown, string][] = [
    [l.workspaceFolderValue, "a folder's .vscode/settings.json"],
    [l.workspaceValue, "the workspace's settings"],
    [l.globalValue, 'your user settings'],
    [l.defaultValue, "VS Code's default"],
  ];
  for (const [v, where] of layers) {
    if (v === undefined) continue;
    return v === false ? where : undefined;
  }
  return undefined;
}
