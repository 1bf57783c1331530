// The campaign report: after running agents in warn mode, what would have been refused,
// grouped by rule and tool, each with the smallest policy change that would admit it.
// Pure: tape records in, Markdown out. The suggestions only name which policy field
// would change; the server alone decides.
import type { TapeRecord } from './protocol';

export interface ReportGroup {
  rule: string;
  tool: string;
  count: number;
  /** Distinct call summaries (commands or argument paths), at most 5. */
  examples: string[];
  /** Programs named by the first word of the commands, for `programs` suggestions. */
  programs: string[];
  first?: string;
  last?: string;
  suggestion: string;
}

/** wouldDeny is a record that warn mode let through although a rule refused it. */
export function isWouldDeny(r: TapeRecord): boolean {
  return r.verdict === 'deny' && r.allowed === true && r.mode === 'warn';
}

function example(r: TapeRecord): string {
  if (typeof r.command === 'string' && r.command) return r.command;
  const a = r.args as Record<string, unknown> | undefined;
  if (a && typeof a === 'object') {
    if (typeof a.command === 'string') return a.command;
    if (typeof a.path === 'string') return a.path;
    const s = JSON.stringify(a);
    return s.length > 80 ? `${s.slice(0, 77)}...` : s;
  }
  return '';
}

function programOf(r: TapeRecord): string | undefined {
  const c = example(r);
  if (!c || c.startsWith('{')) return undefined;
  const w = c.trim().split(/\s+/)[0];
  if (!w) return undefined;
  const base = w.split('/').pop();
  return base && /^[A-Za-z0-9._+-]+$/.test(base) ? base : undefined;
}

const json = (v: unknown) => JSON.stringify(v);

/** suggest names the smallest policy change (or agent behaviour) that would admit a group. */
export function suggest(rule: string, tool: string, programs: string[]): string {
  switch (rule) {
    case 'not-in-allow-list':
      return `add the tool to the allow list: \`"allow": [${json(tool)}]\``;
    case 'read-only-effects':
      return 'let agents change the workspace: `"effects": "workspace-write"`';
    case 'unsupported-program':
    case 'forbidden-flag':
    case 'git-subcommand':
      return programs.length
        ? `describe the program${programs.length > 1 ? 's' : ''} in \`programs\`: ${programs.map((p) => `\`${json(p)}: {...}\``).join(', ')}`
        : 'describe the program in `programs`';
    case 'unobserved-target':
    case 'stale-observation':
      return 'no policy change: the agent should read (or `admit/observe`) the file before changing it, and read it again after it changed';
    case 'no-write-root':
    case 'outside-write-root':
    case 'outside-workspace':
      return 'add the folder to `writeRoots` (or open it as a workspace folder)';
    case 'protected-path':
      return 'move the path from `protect.deny` to `protect.ask` (a person decides each time)';
    case 'budget-exhausted':
      return 'raise `bounds.maxSteps` / `bounds.timeoutMs` / `bounds.maxRetries` for the session';
    case 'request-too-large':
      return 'raise `bounds.maxRequestChars`';
    case 'dynamic-word':
      return 'no policy change: the agent should spell out the words (no `$VAR` or `$(...)`, and the file names where a pattern could not be expanded)';
    case 'shell-syntax':
      return 'use `"shell": "analyze"`, or have the agent send a plain argv';
    case 'no-target':
      return 'no policy change: the command should name its target path';
    case 'empty-command':
    case 'no-tool':
      return 'no policy change: the agent sent an empty call';
    case 'human-denied':
    case 'approval-timeout':
      return 'no policy change: a person refused or did not answer';
    case 'tape-unwritable':
      return 'fix the tape path (`admit.tape`) or its folder permissions';
    default:
      return 'no automatic suggestion; read the reasons on the tape';
  }
}

/** groupWouldDeny groups warn-mode would-deny records by rule and tool, largest group first. */
export function groupWouldDeny(records: readonly TapeRecord[]): ReportGroup[] {
  const groups = new Map<string, ReportGroup & { ex: Set<string>; progs: Set<string> }>();
  for (const r of records) {
    if (!isWouldDeny(r)) continue;
    const rule = r.rule ?? '(no rule)';
    const tool = r.tool ?? '(no tool)';
    const key = `${rule}\u0000${tool}`;
    let g = groups.get(key);
    if (!g) {
      g = { rule, tool, count: 0, examples: [], programs: [], suggestion: '', ex: new Set(), progs: new Set() };
      groups.set(key, g);
    }
    g.count++;
    const e = example(r);
    if (e && g.ex.size < 5) g.ex.add(e);
    const p = programOf(r);
    if (p) g.progs.add(p);
    if (r.time) {
      if (!g.first || r.time < g.first) g.first = r.time;
      if (!g.last || r.time > g.last) g.last = r.time;
    }
  }
  const out: ReportGroup[] = [];
  for (const g of groups.values()) {
    const programs = [...g.progs].sort();
    out.push({
      rule: g.rule, tool: g.tool, count: g.count, examples: [...g.ex], programs,
      first: g.first, last: g.last, suggestion: suggest(g.rule, g.tool, programs),
    });
  }
  out.sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule) || a.tool.localeCompare(b.tool));
  return out;
}

/** renderReport renders the groups as a Markdown document. */
export function renderReport(groups: readonly ReportGroup[], scanned: number, tapePath?: string): string {
  const total = groups.reduce((n, g) => n + g.count, 0);
  const lines = [
    '# admit campaign report',
    '',
    `${total} call${total === 1 ? '' : 's'} would have been refused in enforce mode, in ${groups.length} group${groups.length === 1 ? '' : 's'} (${scanned} tape records read${tapePath ? ` from \`${tapePath}\`` : ''}).`,
    '',
  ];
  if (groups.length === 0) {
    lines.push('Nothing to change: no warn-mode call was refused by a rule.');
    return lines.join('\n') + '\n';
  }
  lines.push('| calls | rule | tool | smallest change |', '| ---: | --- | --- | --- |');
  for (const g of groups) lines.push(`| ${g.count} | \`${g.rule}\` | \`${g.tool}\` | ${g.suggestion.replace(/\|/g, '\\|')} |`);
  lines.push('');
  for (const g of groups) {
    lines.push(`## \`${g.rule}\` · \`${g.tool}\` (${g.count})`, '', `Smallest change: ${g.suggestion}.`, '');
    if (g.first) lines.push(`Seen ${g.first === g.last ? g.first : `${g.first} – ${g.last}`}.`, '');
    if (g.examples.length) {
      lines.push('Examples:', '');
      for (const e of g.examples) lines.push(`- \`${e.replace(/`/g, "'")}\``);
      lines.push('');
    }
  }
  return lines.join('\n');
}
