// The campaign report: after running agents in warn mode, what would have been refused,
// grouped by rule and tool, each with the remedy the server's rule catalogue gives
// (the verdict's `remedy` field). Pure: tape records in, Markdown out. Every text from
// the tape (commands, paths, tool names, the server's remedies) is drawn literal: no
// link, markup or HTML in it can take effect. Records from tapes written before the
// server sent remedies get the extension's older suggestion for their rule.
import type { TapeRecord } from './protocol';
import { mdCell, mdCode, mdText, prose, renderProse, type Prose } from './text';

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
  /** The server's remedies for the group's records (distinct, at most 3), or the fallback for an old tape. */
  remedies: Prose[];
  /** Whether the remedies came from the server (false: every record lacked `remedy`). */
  fromServer: boolean;
}

/** At most this many distinct remedies are shown per group. */
const maxRemedies = 3;

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

/**
 * fallbackRemedy is the suggestion for a record that carries no `remedy` (a tape
 * written before the server sent one). The server's catalogue is the authority; this
 * table only reads old tapes.
 */
export function fallbackRemedy(rule: string, tool: string, programs: string[]): Prose {
  switch (rule) {
    case 'not-in-allow-list':
      return ['add the tool to the allow list: ', { code: `"allow": [${json(tool)}]` }];
    case 'read-only-effects':
      return ['let agents change the workspace: ', { code: '"effects": "workspace-write"' }];
    case 'unsupported-program':
    case 'forbidden-flag':
    case 'git-subcommand':
      if (!programs.length) return ['describe the program in ', { code: 'programs' }];
      return [`describe the program${programs.length > 1 ? 's' : ''} in `, { code: 'programs' }, ': ', ...programs.flatMap((p, i) => [...(i ? [', '] : []), { code: `${json(p)}: {...}` }])];
    case 'unobserved-target':
    case 'stale-observation':
      return ['no policy change: the agent should read (or ', { code: 'admit/observe' }, ') the file before changing it, and read it again after it changed'];
    case 'no-write-root':
    case 'outside-write-root':
    case 'outside-workspace':
      return ['add the folder to ', { code: 'writeRoots' }, ' (or open it as a workspace folder)'];
    case 'protected-path':
      return ['move the path from ', { code: 'protect.deny' }, ' to ', { code: 'protect.ask' }, ' (a person decides each time)'];
    case 'budget-exhausted':
      return ['raise ', { code: 'bounds.maxSteps' }, ' / ', { code: 'bounds.timeoutMs' }, ' / ', { code: 'bounds.maxRetries' }, ' for the session'];
    case 'request-too-large':
      return ['raise ', { code: 'bounds.maxRequestChars' }];
    case 'dynamic-word':
      return ['no policy change: the agent should spell out the words (no ', { code: '$VAR' }, ' or ', { code: '$(...)' }, ', and the file names where a pattern could not be expanded)'];
    case 'shell-syntax':
      return ['use ', { code: '"shell": "analyze"' }, ', or have the agent send a plain argv'];
    case 'no-target':
      return ['no policy change: the command should name its target path'];
    case 'empty-command':
    case 'no-tool':
      return ['no policy change: the agent sent an empty call'];
    case 'human-denied':
    case 'approval-timeout':
    case 'approval-cancelled':
    case 'no-approver':
      return ['no policy change: a person refused or did not answer'];
    case 'tape-unwritable':
      return ['fix the tape path (', { code: 'admit.tape' }, ') or its folder permissions'];
    default:
      return ['no remedy on this old tape record; read the reasons on the tape'];
  }
}

/** groupWouldDeny groups warn-mode would-deny records by rule and tool, largest group first. */
export function groupWouldDeny(records: readonly TapeRecord[]): ReportGroup[] {
  const groups = new Map<string, Omit<ReportGroup, 'remedies' | 'fromServer'> & { ex: Set<string>; progs: Set<string>; rem: Set<string> }>();
  for (const r of records) {
    if (!isWouldDeny(r)) continue;
    const rule = r.rule ?? '(no rule)';
    const tool = r.tool ?? '(no tool)';
    const key = `${rule}\u0000${tool}`;
    let g = groups.get(key);
    if (!g) {
      g = { rule, tool, count: 0, examples: [], programs: [], ex: new Set(), progs: new Set(), rem: new Set() };
      groups.set(key, g);
    }
    g.count++;
    const e = example(r);
    if (e && g.ex.size < 5) g.ex.add(e);
    const p = programOf(r);
    if (p) g.progs.add(p);
    if (typeof r.remedy === 'string' && r.remedy.trim() && g.rem.size < maxRemedies) g.rem.add(r.remedy.trim());
    if (r.time) {
      if (!g.first || r.time < g.first) g.first = r.time;
      if (!g.last || r.time > g.last) g.last = r.time;
    }
  }
  const out: ReportGroup[] = [];
  for (const g of groups.values()) {
    const programs = [...g.progs].sort();
    const fromServer = g.rem.size > 0;
    out.push({
      rule: g.rule, tool: g.tool, count: g.count, examples: [...g.ex], programs, first: g.first, last: g.last,
      remedies: fromServer ? [...g.rem].map(prose) : [fallbackRemedy(g.rule, g.tool, programs)], fromServer,
    });
  }
  out.sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule) || a.tool.localeCompare(b.tool));
  return out;
}

/** renderReport renders the groups as a Markdown document in which nothing from the tape can be a link or markup. */
export function renderReport(groups: readonly ReportGroup[], scanned: number, tapePath?: string): string {
  const total = groups.reduce((n, g) => n + g.count, 0);
  const lines = [
    '# admit campaign report',
    '',
    `${total} call${total === 1 ? '' : 's'} would have been refused in enforce mode, in ${groups.length} group${groups.length === 1 ? '' : 's'} (${scanned} tape records read${tapePath ? ` from ${mdCode(tapePath)}` : ''}).`,
    '',
  ];
  if (groups.length === 0) {
    lines.push('Nothing to change: no warn-mode call was refused by a rule.');
    return lines.join('\n') + '\n';
  }
  lines.push('| calls | rule | tool | remedy |', '| ---: | --- | --- | --- |');
  for (const g of groups) {
    lines.push(`| ${g.count} | ${mdCell(g.rule)} | ${mdCell(g.tool)} | ${g.remedies.map((r) => renderProse(r, true)).join(' / ')} |`);
  }
  lines.push('');
  for (const g of groups) {
    lines.push(`## ${mdCode(g.rule)} · ${mdCode(g.tool)} (${g.count})`, '');
    for (const r of g.remedies) lines.push(`${g.fromServer ? 'Remedy' : 'Suggestion (old tape, no remedy recorded)'}: ${renderProse(r)}`, '');
    if (g.first) lines.push(`Seen ${mdText(g.first === g.last ? g.first : `${g.first} – ${g.last}`)}.`, '');
    if (g.examples.length) {
      lines.push('Examples:', '');
      for (const e of g.examples) lines.push(`- ${mdCode(e)}`);
      lines.push('');
    }
  }
  return lines.join('\n');
}
