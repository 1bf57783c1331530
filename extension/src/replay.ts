// The replay page: before the person trusts a new workspace policy or takes a suggested
// rule, what it would have done to the calls already on the tape (admit/replay,
// docs/teams.md): calls that ran and would now be asked or refused, calls that were
// asked and would now run, by rule, with examples. Pure: a ReplayReport in, a webview
// page out; every text from the tape (commands, folders, reasons) is drawn literal.
import { page } from './html';
import { htmlText, plain } from './text';

/** One replayed call (gate.ReplayCall). */
export interface ReplayCall {
  id?: string;
  time?: string;
  tool?: string;
  command?: string;
  cwd?: string;
  from?: string;
  to?: string;
  fromRule?: string;
  toRule?: string;
  reason?: string;
  missing?: string[];
}

/** Calls whose answer would change the same way (gate.ReplayChange). */
export interface ReplayChange {
  from: string;
  to: string;
  fromRule: string;
  toRule: string;
  count: number;
  examples: ReplayCall[];
}

/** admit/replay's answer (gate.ReplayReport). */
export interface ReplayReport {
  records: number;
  calls: number;
  replayed: number;
  unchanged: number;
  changed: number;
  noFacts: number;
  missingFacts: number;
  changes: ReplayChange[];
  missing?: ReplayCall[];
}

/** What the replay was for: the page's words for the change proposed. */
export interface ReplaySubject {
  /** e.g. "trusting the workspace policy file /w/.admit/policy.json" */
  what: string;
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.trunc(v) : 0);
const s = (v: unknown): string => (typeof v === 'string' ? v : '');

/** replayReportOf keeps what the page draws of an answer, whatever its shape. */
export function replayReportOf(v: unknown): ReplayReport | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const r = v as Record<string, unknown>;
  const calls = (a: unknown): ReplayCall[] => (Array.isArray(a) ? a.filter((c) => c && typeof c === 'object') : []);
  return {
    records: n(r.records), calls: n(r.calls), replayed: n(r.replayed), unchanged: n(r.unchanged), changed: n(r.changed),
    noFacts: n(r.noFacts), missingFacts: n(r.missingFacts),
    changes: (Array.isArray(r.changes) ? r.changes : []).filter((c) => c && typeof c === 'object').map((c) => ({
      from: s(c.from), to: s(c.to), fromRule: s(c.fromRule), toRule: s(c.toRule), count: n(c.count), examples: calls(c.examples),
    })),
    missing: calls(r.missing),
  };
}

/** The answers, strictest last: a change toward a later one tightens. */
const rank: Record<string, number> = { allow: 0, ask: 1, deny: 2 };

/** direction says how a change moves: tighter (ran, now asked or refused), looser (now runs or is asked where it was refused), or a different rule alone. */
export function direction(c: Pick<ReplayChange, 'from' | 'to'>): 'tighter' | 'looser' | 'same' {
  const a = rank[c.from];
  const b = rank[c.to];
  if (a === undefined || b === undefined || a === b) return 'same';
  return b > a ? 'tighter' : 'looser';
}

const words: Record<string, string> = { allow: 'ran', ask: 'was asked', deny: 'was refused' };
const nowWords: Record<string, string> = { allow: 'would now run', ask: 'would now be asked', deny: 'would now be refused' };

function callHtml(c: ReplayCall): string {
  const what = c.command ? c.command : s(c.tool);
  const parts = [`<code>${htmlText(what)}</code>`];
  if (c.cwd) parts.push(`<span class="muted">in <code>${htmlText(c.cwd)}</code></span>`);
  if (c.time) parts.push(`<span class="muted">${htmlText(c.time)}</span>`);
  if (c.reason) parts.push(`<br><span class="muted">${htmlText(c.reason)}</span>`);
  if (c.missing?.length) parts.push(`<br><span class="muted">facts missing: ${c.missing.map((m) => `<code>${htmlText(String(m))}</code>`).join(', ')}</span>`);
  return parts.join(' ');
}

/**
 * renderReplay renders the page: the counts, then the changes that loosen first (calls
 * that would now run where they were asked or refused: the ones a person must weigh),
 * then those that tighten, then rule changes alone, each with examples; and the calls
 * whose facts were missing.
 */
export function renderReplay(subject: ReplaySubject, r: ReplayReport, nonce: string): string {
  const plural = (k: number, one: string) => `${k} ${one}${k === 1 ? '' : 's'}`;
  const out = [
    '<h1>admit: what this change would have done</h1>',
    `<p>Before ${htmlText(subject.what)}: the ${plural(r.calls, 'call')} on the tape judged again under it, from the facts each decision was taken on (the file system is not asked again).</p>`,
    `<p>${r.replayed} judged again: <strong>${r.changed} would change</strong>, ${r.unchanged} would not.` +
      (r.noFacts ? ` ${plural(r.noFacts, 'call')} taped without facts could not be judged.` : '') +
      (r.missingFacts ? ` ${plural(r.missingFacts, 'call')} lacked a fact and ${r.missingFacts === 1 ? 'was' : 'were'} judged as unknown, which refuses or asks.` : '') +
      '</p>',
  ];
  if (!r.changes.length) {
    out.push('<p>Nothing on the tape would be decided differently.</p>');
  }
  const sections: [string, 'looser' | 'tighter' | 'same'][] = [
    ['Would now run, or be asked where it was refused', 'looser'],
    ['Would now be asked or refused', 'tighter'],
    ['Same answer, another rule', 'same'],
  ];
  for (const [title, dir] of sections) {
    const list = r.changes.filter((c) => direction(c) === dir).sort((a, b) => b.count - a.count);
    if (!list.length) continue;
    out.push(`<h2>${htmlText(title)}</h2>`);
    out.push('<table><thead><tr><th class="n">calls</th><th>before</th><th>after</th><th>examples</th></tr></thead><tbody>');
    for (const c of list) {
      const before = `${htmlText(words[c.from] ?? c.from)} <code>${htmlText(c.fromRule)}</code>`;
      const after = `${htmlText(nowWords[c.to] ?? c.to)} <code>${htmlText(c.toRule)}</code>`;
      out.push(`<tr><td class="n">${c.count}</td><td>${before}</td><td>${after}</td><td>${c.examples.map(callHtml).join('<hr>')}</td></tr>`);
    }
    out.push('</tbody></table>');
  }
  if (r.missing?.length) {
    out.push('<h2>Facts missing</h2>', `<ul>${r.missing.map((c) => `<li>${callHtml(c)}</li>`).join('')}</ul>`);
  }
  return page('admit: replay', out.join('\n'), nonce);
}

/**
 * replaySummary is the replay in a few plain lines, for the question asked beside the
 * page (a modal dialog, which stops the person from scrolling the page): the counts,
 * then each change with its first example.
 */
export function replaySummary(r: ReplayReport, most = 4): string[] {
  const lines = [
    `On the tape, ${r.replayed} call${r.replayed === 1 ? '' : 's'} judged again: ${r.changed} would change, ${r.unchanged} would not` +
      (r.noFacts ? `, ${r.noFacts} taped without facts` : '') + (r.missingFacts ? `, ${r.missingFacts} lacked a fact (judged as unknown)` : '') + '.',
  ];
  const order = { looser: 0, tighter: 1, same: 2 };
  const changes = [...r.changes].sort((a, b) => order[direction(a)] - order[direction(b)] || b.count - a.count);
  for (const c of changes.slice(0, most)) {
    const ex = c.examples[0];
    const what = ex ? ` (${ex.command || s(ex.tool)})` : '';
    lines.push(`• ${c.count} that ${words[c.from] ?? c.from} (${c.fromRule}) ${nowWords[c.to] ?? c.to} (${c.toRule})${what}`);
  }
  if (changes.length > most) lines.push(`• and ${changes.length - most} more kinds of change: see the replay page`);
  return lines.map(plain);
}

/** replayFailedPage says the replay could not be made; the person still decides. */
export function replayFailedPage(subject: ReplaySubject, message: string, nonce: string): string {
  return page(
    'admit: replay',
    `<h1>admit: what this change would have done</h1><p>Before ${htmlText(subject.what)}: the calls on the tape could not be judged again: ${htmlText(message)}</p>`,
    nonce,
  );
}
