// The campaign report: after running agents in warn mode, what would have been refused,
// grouped by rule and tool, each with the remedy the server's rule catalogue gives
// (the verdict's `remedy` field), and the rules admit/suggestRules proposes. Pure: tape
// records in, a webview page out. Every text from the tape (commands, paths, tool
// names, the server's remedies and proposals) is drawn literal: no link, markup or HTML
// in it can take effect. Records from tapes written before the
// server sent remedies get the extension's older suggestion for their rule.
import { page } from './html';
import type { RuleSuggestion, TapeRecord } from './protocol';
import { commandHref, htmlProse, htmlText, prose, type Prose } from './text';

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

/** What admit/suggestRules gave the report: proposals, or why there are none. */
export type Suggestions =
  | { kind: 'ok'; list: readonly RuleSuggestion[]; added?: ReadonlySet<number> }
  | { kind: 'unavailable'; message: string };

/** The command a proposal's link runs, with [report token, index]. */
export const addSuggestedCommand = 'admit.addSuggestedRule';

function suggestionsHtml(s: Suggestions, token: number): string {
  const out = ['<h2>Proposed rules</h2>'];
  if (s.kind === 'unavailable') {
    out.push(`<p class="muted">${htmlText(s.message)}</p>`);
    return out.join('\n');
  }
  if (!s.list.length) {
    out.push('<p class="muted">None: nothing on the tape was asked or refused often enough to propose a rule.</p>');
    return out.join('\n');
  }
  out.push(
    '<p>Rules admit proposes from what was asked or refused, each checked to load without error. A rule is written to your rules (kept outside the repository) only when you add it.</p>',
    '<table><thead><tr><th>rule</th><th>decision</th><th class="n">would have matched</th><th>examples</th><th></th></tr></thead><tbody>',
  );
  s.list.forEach((g, i) => {
    const examples = (Array.isArray(g.examples) ? g.examples : []).filter((e): e is string => typeof e === 'string').slice(0, 3);
    const decision = ['allow', 'ask', 'deny'].includes(g.decision) ? g.decision : '?';
    const action = s.added?.has(i)
      ? '<span class="muted">added</span>'
      : `<a class="button" href="${commandHref(addSuggestedCommand, [token, i])}">Add this rule…</a>`;
    out.push(
      `<tr><td><code>${htmlText(String(g.match ?? ''))}</code></td><td>${htmlText(decision)}</td><td class="n">${Number.isFinite(g.count) ? Math.trunc(g.count) : '?'}</td>` +
        `<td>${examples.map((e) => `<code>${htmlText(e)}</code>`).join('<br>')}</td><td>${action}</td></tr>`,
    );
  });
  out.push('</tbody></table>');
  return out.join('\n');
}

/**
 * renderReport renders the report as a webview page: the would-deny groups with the
 * server's remedies, then the rules admit/suggestRules proposes, each with a link to
 * add it (admit.addSuggestedRule with the report's token and the row's index, never
 * text from the tape). Every text from the tape or the server is escaped.
 */
export function renderReport(groups: readonly ReportGroup[], scanned: number, tapePath: string | undefined, suggestions: Suggestions, token: number, nonce: string): string {
  const total = groups.reduce((n, g) => n + g.count, 0);
  const code = (s: string) => `<code>${htmlText(s)}</code>`;
  const out = [
    '<h1>admit campaign report</h1>',
    `<p>${total} call${total === 1 ? '' : 's'} would have been refused in enforce mode, in ${groups.length} group${groups.length === 1 ? '' : 's'} (${scanned} tape records read${tapePath ? ` from ${code(tapePath)}` : ''}).</p>`,
  ];
  if (groups.length === 0) {
    out.push('<p>Nothing to change: no warn-mode call was refused by a rule.</p>');
  } else {
    out.push('<table><thead><tr><th class="n">calls</th><th>rule</th><th>tool</th><th>remedy</th></tr></thead><tbody>');
    for (const g of groups) {
      out.push(`<tr><td class="n">${g.count}</td><td>${code(g.rule)}</td><td>${code(g.tool)}</td><td>${g.remedies.map((r) => htmlProse(r)).join(' / ')}</td></tr>`);
    }
    out.push('</tbody></table>');
    for (const g of groups) {
      out.push(`<h2>${code(g.rule)} · ${code(g.tool)} (${g.count})</h2>`);
      for (const r of g.remedies) out.push(`<p>${g.fromServer ? 'Remedy' : 'Suggestion (old tape, no remedy recorded)'}: ${htmlProse(r)}</p>`);
      if (g.first) out.push(`<p class="muted">Seen ${htmlText(g.first === g.last ? g.first : `${g.first} – ${g.last}`)}.</p>`);
      if (g.examples.length) out.push(`<p>Examples:</p><ul>${g.examples.map((e) => `<li>${code(e)}</li>`).join('')}</ul>`);
    }
  }
  out.push(suggestionsHtml(suggestions, token));
  return page('admit campaign report', out.join('\n'), nonce);
}
