// admit's own tools as VS Code language-model tools (lmTools.ts registers them): what
// each tool takes, the admit/* call it becomes, the check that tells beforehand
// whether admit will ask (so the ask is VS Code's confirmation of the tool), the
// confirmation's words, and the text the model reads back. Pure.
//
// The tools are those of `admit mcp serve` (mcpserver/tools.go), under names VS Code
// accepts (letters, digits, _ and -): the same arguments, the same strictness (an
// argument the schema does not name is an error, never ignored), the same results.
import type { ApproveParams, Verdict } from './protocol';
import { Methods } from './protocol';
import { mdCode, mdText } from './text';

/** The tools' names, as package.json contributes them (languageModelTools[].name). */
export const toolNames = ['admit_read', 'admit_search', 'admit_edit', 'admit_write', 'admit_run'] as const;
export type ToolName = (typeof toolNames)[number];

/** What a tool call becomes: the admit/* request that acts, and the check that judges it beforehand. */
export interface GateCall {
  tool: ToolName;
  method: string;
  params: Record<string, unknown>;
  /** admit/check params that judge the call as `method` will (the gate's tool names: admit.read, ...). */
  check: { tool: string; args?: Record<string, unknown>; command?: string; argv?: string[]; cwd?: string };
  /** What the question about this call shows: the command line, or the path. */
  shown: { label: 'Command' | 'Path'; text: string };
  /** The path the model named (file tools), for remembering the hash it read. */
  path?: string;
}

type Args = Record<string, unknown>;

/** Each tool's arguments: name → [type, required]. */
const argSpecs: Record<ToolName, Record<string, ['string' | 'boolean' | 'integer', boolean]>> = {
  admit_read: { path: ['string', true] },
  admit_search: { pattern: ['string', true], path: ['string', false], fixedStrings: ['boolean', false], ignoreCase: ['boolean', false], include: ['string', false] },
  admit_edit: { path: ['string', true], oldText: ['string', true], newText: ['string', true], replaceAll: ['boolean', false], expectHash: ['string', false] },
  admit_write: { path: ['string', true], content: ['string', true], expectHash: ['string', false] },
  admit_run: { command: ['string', true], cwd: ['string', false], timeoutMs: ['integer', false] },
};

/** checkArgs reads a tool's input strictly; the error names the argument and what is wrong with it. */
export function checkArgs(tool: ToolName, input: unknown): { args: Args } | { error: string } {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return { error: `${tool}: the input must be an object of arguments` };
  const spec = argSpecs[tool];
  const args = input as Args;
  for (const k of Object.keys(args)) {
    if (!(k in spec)) return { error: `${tool}: unknown argument ${JSON.stringify(k)}; it takes ${Object.keys(spec).join(', ')}` };
  }
  for (const [k, [type, required]] of Object.entries(spec)) {
    const v = args[k];
    if (v === undefined) {
      if (required) return { error: `${tool}: argument ${k} is required` };
      continue;
    }
    const ok = type === 'integer' ? typeof v === 'number' && Number.isSafeInteger(v) && v > 0 : typeof v === type;
    if (!ok) return { error: `${tool}: argument ${k} must be ${type === 'integer' ? 'a positive integer' : `a ${type}`}, not ${JSON.stringify(v)?.slice(0, 40)}` };
  }
  return { args };
}

/**
 * gateCall turns a tool's input into the call admit judges and makes. expectHash, when
 * the model gives none, is the hash this window's tools last read or wrote for the
 * path (hashOf): an edit is bound to the bytes read, and refused if they changed.
 */
export function gateCall(tool: ToolName, input: unknown, hashOf: (path: string) => string | undefined): GateCall | { error: string } {
  const c = checkArgs(tool, input);
  if ('error' in c) return c;
  const a = c.args as Record<string, never>;
  switch (tool) {
    case 'admit_read':
      if (!a.path) return { error: 'admit_read: argument path must not be empty' };
      return { tool, method: Methods.read, params: { path: a.path }, check: { tool: 'admit.read', args: { path: a.path } }, shown: { label: 'Path', text: a.path }, path: a.path };
    case 'admit_search': {
      const pattern = a.pattern as string;
      if (!pattern) return { error: 'admit_search: argument pattern must not be empty' };
      // An argv, judged word for word as grep's: no shell reads the pattern, and -e and
      // -- keep a pattern or path that starts with - from being taken as an option.
      const argv = ['grep', '-rnI', '--exclude-dir=.git'];
      if (a.fixedStrings) argv.push('-F');
      if (a.ignoreCase) argv.push('-i');
      if (a.include) argv.push(`--include=${a.include as string}`);
      argv.push('-e', pattern, '--', (a.path as string) || '.');
      return { tool, method: Methods.run, params: { argv }, check: { tool: 'admit.run', argv }, shown: { label: 'Command', text: argv.join(' ') } };
    }
    case 'admit_edit': {
      if (!a.path) return { error: 'admit_edit: argument path must not be empty' };
      if (!a.oldText) return { error: 'admit_edit: argument oldText must not be empty: quote the text to replace, as read' };
      const expectHash = (a.expectHash as string | undefined) || hashOf(a.path);
      if (!expectHash) return { error: `admit_edit: read ${a.path} with admit_read first; an edit is bound to the bytes read. Nothing was done.` };
      const params = { path: a.path, oldText: a.oldText, newText: a.newText, replaceAll: a.replaceAll === true, expectHash };
      // The check sees what admit/edit judges: the lengths, not the texts (server: gate/files.go).
      const args = { path: a.path, oldText: (a.oldText as string).length, newText: (a.newText as string).length, replaceAll: a.replaceAll === true, expectHash };
      return { tool, method: Methods.edit, params, check: { tool: 'admit.edit', args }, shown: { label: 'Path', text: a.path }, path: a.path };
    }
    case 'admit_write': {
      if (!a.path) return { error: 'admit_write: argument path must not be empty' };
      const expectHash = (a.expectHash as string | undefined) || hashOf(a.path);
      const params: Args = { path: a.path, content: a.content };
      if (expectHash) params.expectHash = expectHash;
      const args = { path: a.path, content: (a.content as string).length, expectHash: expectHash ?? '' };
      return { tool, method: Methods.write, params, check: { tool: 'admit.write', args }, shown: { label: 'Path', text: a.path }, path: a.path };
    }
    case 'admit_run': {
      const command = a.command as string;
      if (!command.trim()) return { error: 'admit_run: argument command must be a command line; nothing was run' };
      const params: Args = { command };
      if (a.cwd) params.cwd = a.cwd;
      if (a.timeoutMs) params.timeoutMs = a.timeoutMs;
      return { tool, method: Methods.run, params, check: { tool: 'admit.run', command, ...(a.cwd ? { cwd: a.cwd as string } : {}) }, shown: { label: 'Command', text: command } };
    }
  }
}

/** What the gate would ask a person about a call: the server's question, or its dry run's verdict. */
export interface Ask {
  tool: string;
  command?: string;
  targets: string[];
  reason?: string;
  cwd?: string;
  confinement?: string;
}

const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** askOf reads the server's admit/approve params (or a dry run's verdict) into an Ask. */
export function askOf(p: Partial<ApproveParams> & { targets?: unknown }, command?: string): Ask {
  return { tool: String(p.tool ?? ''), command: str(p.command) ?? command, targets: strs(p.targets), reason: str(p.reason), cwd: str(p.cwd), confinement: str(p.confinement) };
}

/**
 * questionKey names a question by what it is about: the gate's tool, the whole command
 * line, the paths. The question the acting call raises has the key of the one the
 * check raised (both are the same call, judged the same way), so the answer the person
 * gave in VS Code's confirmation answers that question and no other.
 */
export function questionKey(q: { tool?: unknown; command?: unknown; targets?: unknown }): string {
  return JSON.stringify([String(q.tool ?? ''), typeof q.command === 'string' ? q.command : '', strs(q.targets).slice().sort()]);
}

const titles: Record<ToolName, string> = {
  admit_read: 'read a file',
  admit_search: 'search the workspace',
  admit_edit: 'edit a file',
  admit_write: 'write a file',
  admit_run: 'run a command',
};

/**
 * confirmation is the tool's own confirmation when admit asks: a plain title (VS Code
 * shows it as a dialog's message, never parsed) and a Markdown message in which the
 * whole command or path, the paths, the folder and admit's reason are literal (code
 * spans, escaped prose). Continue is the person's answer to admit's question, for this
 * one call.
 */
export function confirmation(call: GateCall, ask: Ask): { title: string; message: string } {
  const lines = [`**admit asks you** before this call runs. ${call.shown.label === 'Command' ? 'The whole command' : 'The path'}:`, '', mdCode(ask.command ?? call.shown.text)];
  if (ask.targets.length) {
    const shown = ask.targets.slice(0, 20).map(mdCode).join(', ');
    lines.push('', `Paths: ${shown}${ask.targets.length > 20 ? `, and ${ask.targets.length - 20} more` : ''}`);
  }
  if (ask.cwd) lines.push('', `In: ${mdCode(ask.cwd)}`);
  if (ask.reason) lines.push('', `Why admit asks: ${mdText(ask.reason)}`);
  if (ask.confinement) lines.push('', `Runs confined by: ${mdText(ask.confinement)}`);
  lines.push('', 'Continue (or Yes) allows this one call; Cancel refuses it, and nothing runs.');
  return { title: `admit: allow this tool to ${titles[call.tool]}?`, message: lines.join('\n') };
}

/** invocationMessage is what VS Code shows while the call runs: Markdown, the call literal. */
export function invocationMessage(call: GateCall): string {
  const text = call.shown.text.length > 200 ? `${call.shown.text.slice(0, 199)}…` : call.shown.text;
  return `admit: ${titles[call.tool]} ${mdCode(text)}`;
}

/** The fields of an admit/* result the tools read; every one may be missing. */
export interface GateResult extends Partial<Verdict> {
  content?: string;
  hash?: string;
  size?: number;
  verified?: boolean;
  detail?: string;
  ran?: boolean;
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  truncated?: boolean;
  timedOut?: boolean;
  confinement?: string;
  /** Secret files the run read as empty, hidden by admit (a walk beside a .env). */
  hidden?: string[];
  effects?: { added?: string[]; removed?: string[]; changed?: string[] };
}

/** refusalText is what the model reads when the call was refused: the verdict's toolError (nothing was executed). */
export function refusalText(r: GateResult): string {
  if (typeof r.toolError === 'string' && r.toolError) return r.toolError;
  return JSON.stringify({ error: 'REFUSED by admit; NOTHING was executed', rule: r.rule ?? 'unknown', reason: r.reason ?? '' });
}

/** refused says whether the result is a refusal the model must be told (the call did not act). */
export function refused(r: GateResult): boolean {
  return r.verdict === 'deny' && r.allowed === false;
}

/** runText is a run's result: its exit code, output and what changed (a command that ran and failed is a result, not an error). */
export function runText(r: GateResult, note = ''): string {
  if (!r.ran) return `not run: ${r.detail ?? r.reason ?? 'admit did not run it'}`;
  const out: string[] = [`exit code ${r.exitCode ?? -1}${r.confinement ? ` (confined: ${r.confinement})` : ''}${r.timedOut ? ', stopped at its timeout' : ''}`];
  if (note) out.push(note);
  if (strs(r.hidden).length) out.push(`hidden from the run (read as empty, as secrets): ${strs(r.hidden).join(' ')}`);
  if (r.stdout) out.push(r.stdout.replace(/\n$/, ''));
  if (r.stderr) out.push(`stderr:\n${r.stderr.replace(/\n$/, '')}`);
  if (r.truncated) out.push("(output cut at admit's bound)");
  const e = r.effects ?? {};
  const changed = [...strs(e.added).map((p) => `+${p}`), ...strs(e.removed).map((p) => `-${p}`), ...strs(e.changed).map((p) => `~${p}`)];
  if (changed.length) out.push(`changed: ${changed.join(' ')}`);
  if (r.verified === false) out.push(`not verified: ${r.detail ?? ''}`);
  return out.join('\n') + '\n';
}

/** resultText is what the model reads back from an admitted call. */
export function resultText(call: GateCall, r: GateResult): string {
  switch (call.tool) {
    case 'admit_read':
      return typeof r.content === 'string' ? r.content : `read ${call.shown.text}: ${r.detail ?? 'nothing read'}`;
    case 'admit_search':
      return runText(r, r.ran && r.exitCode === 1 && !r.stderr ? 'no match' : '');
    case 'admit_run':
      return runText(r);
    case 'admit_edit':
    case 'admit_write': {
      const verb = call.tool === 'admit_edit' ? 'edited' : 'wrote';
      const target = strs(r.targets)[0] ?? call.shown.text;
      if (r.verified !== true) return `${call.shown.text}: not ${verb}: ${r.detail ?? r.reason ?? ''}`;
      return `${verb} ${target} (${r.size ?? 0} bytes): ${r.detail ?? 'verified'}`;
    }
  }
}
