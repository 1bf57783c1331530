// One decision as a page a person reads: what was asked, what was decided, by which
// rule, what to do next (the remedy), and the tape record underneath. Pure: the
// decision and its tape line in, HTML out (html.ts: no script, every text escaped).
import { agentOf, clock, lookOf, lookWords } from './decisions';
import { dl, page } from './html';
import type { Decision, TapeRecord } from './protocol';
import { htmlBlock, htmlProse, htmlText, prose } from './text';

const code = (s: string) => `<code>${htmlText(s)}</code>`;

const decidedByWords: Record<string, string> = {
  rule: 'the policy, by rule',
  person: 'you (a person at the editor)',
  grant: 'an earlier "allow for this session" of yours',
  timeout: 'the deadline: nobody answered in time',
  cancelled: 'nobody: the question was withdrawn (the agent cancelled)',
  'session-closed': 'nobody: the session was closed while it waited',
  shutdown: 'nobody: the server stopped while it waited',
  disconnected: 'nobody: the editor was gone',
  headless: 'nobody: there was no one to ask',
};

/** whatRan is the call as the agent made it: the whole command line when there is one. */
function whatWasAsked(d: Decision, rec: TapeRecord | undefined): { label: string; text: string } {
  const args = (rec?.args ?? d.args) as Record<string, unknown> | undefined;
  const command = typeof rec?.command === 'string' && rec.command ? rec.command : args && typeof args.command === 'string' ? args.command : undefined;
  if (command) return { label: 'Command', text: command };
  if (args !== undefined && args !== null) return { label: 'Arguments', text: JSON.stringify(args, null, 2) ?? String(args) };
  return { label: 'Call', text: d.summary || d.tool || '(nothing recorded)' };
}

/** nextStep is what to do after the decision when the server gave no remedy. */
function nextStep(d: Decision): string {
  switch (lookOf(d)) {
    case 'allowed':
      return 'Nothing: the call was admitted by the policy.';
    case 'approved':
      return 'Nothing: a person allowed it. To be asked less, add a rule in the Rules view.';
    case 'denied':
      return 'Nothing: you refused it, and the agent was told so.';
    case 'unanswered':
      return 'The call was refused because nobody answered. If it should run, have the agent ask again while you are at the editor.';
    case 'would-deny':
      return 'Warn mode let it run; in enforce mode it would be refused. See the rule below.';
    case 'refused':
      return 'The call did not run. See the rule below (docs/rules.md gives each rule its remedy).';
  }
}

/** decisionPage renders one decision (and its tape record, when found) as a page. */
export function decisionPage(d: Decision, rec: TapeRecord | undefined, nonce: string): string {
  const look = lookOf(d);
  const asked = whatWasAsked(d, rec);
  const agentCtx = rec?.context && typeof rec.context.agent === 'string' ? rec.context.agent : undefined;
  const agent = agentCtx ?? agentOf(d);
  const targets = (Array.isArray(rec?.targets) ? rec.targets : d.targets ?? []).filter((t): t is string => typeof t === 'string');
  const time = (typeof rec?.time === 'string' && rec.time) || d.time;
  const allowed = d.allowed === true;
  const body = [
    `<h1><span class="badge ${look}">${htmlText(lookWords(d))}</span> ${code(d.tool || '(no tool)')}</h1>`,
    '<h2>What was asked</h2>',
    `<p class="muted">${htmlText(asked.label)}</p>`,
    `<pre id="asked">${htmlBlock(asked.text)}</pre>`,
    dl([
      ['Tool', code(d.tool || '')],
      ['Agent', agent && htmlText(agent)],
      ['Session', d.session && code(d.session)],
      ['Folder', typeof rec?.cwd === 'string' && rec.cwd ? code(rec.cwd) : undefined],
      ['When', time && htmlText(`${clock(time)} (${time})`)],
      ['Paths', targets.length ? targets.slice(0, 50).map(code).join(', ') + (targets.length > 50 ? htmlText(`, and ${targets.length - 50} more`) : '') : undefined],
    ]),
    '<h2>What was decided</h2>',
    dl([
      ['Outcome', htmlText(lookWords(d))],
      ['For the agent', allowed ? (d.verdict === 'allow' ? 'it may go ahead' : 'it went ahead: warn mode lets refused calls run') : 'it must not run it; nothing was executed'],
      ['Decided by', htmlText(decidedByWords[String(d.decidedBy ?? 'rule')] ?? String(d.decidedBy))],
      ['Mode', d.mode && code(String(d.mode))],
      ['Policy file', d.policyTrust ? htmlText(String(d.policyTrust)) : undefined],
    ]),
    '<h2>By which rule</h2>',
    `<p>${code(d.rule || '(none)')}</p>`,
    d.reason ? `<p id="reason">${htmlText(d.reason)}</p>` : '',
    '<h2>What to do next</h2>',
    `<p id="remedy">${d.remedy ? htmlProse(prose(d.remedy)) : htmlText(nextStep(d))}</p>`,
    '<h2>The record</h2>',
    `<details><summary>${rec ? 'The tape line' : 'The decision as announced (its tape line was not found)'}</summary><pre>${htmlBlock(JSON.stringify(rec ?? d, null, 2))}</pre></details>`,
  ].filter(Boolean);
  return page(`admit: ${lookWords(d)} ${d.tool ?? ''}`, body.join('\n'), nonce);
}
