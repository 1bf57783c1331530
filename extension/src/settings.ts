// The admit.* settings: which layer each one is read from, how a repository's value may
// only tighten the gate, what Restricted Mode forces, where the server binary is, and
// the initialization options the server gets. Pure: VS Code's configuration comes in as
// layers, the file system as a probe, so the tests need no VS Code.
//
// The repository is hostile (its .vscode/settings.json, a folder's settings, a
// .code-workspace file): a setting that chooses what runs (the server binary, the tape)
// or that loosens the gate (mode, effects, shell, the approval timeout, confined runs,
// weaker confinement) is taken from the person's user or machine settings only. A
// repository value of mode, effects or shell counts when it is stricter, and a
// repository's secret patterns are added (its exemptions are not); every other
// repository value is ignored, and a note says so in the output channel.
import * as path from 'path';
import type { AdmitEffects, AdmitMode, AdmitShell } from './protocol';

/** What VS Code knows about one admit.* key (from `inspect()`), split by who wrote it. */
export interface Layers {
  /** The person's value: user or machine settings (`globalValue`). */
  person?: unknown;
  /** The extension's default (`defaultValue`). */
  default?: unknown;
  /** Values the repository wrote: the workspace's and each folder's, with where they are. */
  repo: readonly { where: string; value: unknown }[];
}

/** LayerSource gives the layers of one key, named without the `admit.` prefix. */
export type LayerSource = (key: string) => Layers;

export interface Settings {
  mode: AdmitMode;
  effects: AdmitEffects;
  shell: AdmitShell;
  /** The person's admit.server.path, unexpanded. */
  serverPath: string;
  modal: boolean;
  approvalTimeoutMs: number;
  /** The person's admit.tape, unexpanded. */
  tape: string;
  /** Patterns of files whose reading asks, besides the built-in ones ("!PATTERN" exempts; only the person's may). */
  secretPatterns: string[];
  /** Whether a program that runs code (tests, builds) is asked, or runs without a question when admit runs it confined. */
  confinedRuns: ConfinedRuns;
  /** Run a confined command even where this machine lacks a wall it needs. */
  acceptWeakerConfinement: boolean;
  /** Restricted Mode (the workspace is not trusted): enforce and read-only, whatever the settings say. */
  restricted: boolean;
}

/** admit.confinedRuns: ask for a program that runs code, or let it run confined without a question. */
export type ConfinedRuns = 'ask' | 'allow';

/** The server's own defaults (docs/protocol.md); the manifest says the same. */
export const defaults = {
  mode: 'warn' as AdmitMode,
  effects: 'read-only' as AdmitEffects,
  shell: 'analyze' as AdmitShell,
  approvalTimeoutMs: 60000,
  confinedRuns: 'ask' as ConfinedRuns,
};

/** The bounds of admit.approvalTimeoutMs: a second, and a day. */
export const approvalTimeoutBounds = { min: 1000, max: 86_400_000 };

/**
 * Each ordered setting's values in tiers, strictest first: a repository value counts only
 * when its tier comes earlier. The interactive shells share a tier: each judges a line as
 * `bash -c` would and refuses more, but none is stricter than another (they are different
 * shells), so a repository may move analyze to one of them, never one to another. Portable
 * admits a line only if every one of them does, so it is stricter than each, and refuse (argv
 * only) stricter still.
 */
export const strictness = {
  mode: [['enforce'], ['warn'], ['off']] as const,
  effects: [['read-only'], ['workspace-write']] as const,
  shell: [['refuse'], ['portable'], ['bash-interactive', 'zsh', 'fish'], ['analyze']] as const,
};

/** The settings a repository cannot loosen: declared `restrictedConfigurations` in the manifest. */
export const guardedKeys = [
  'mode', 'effects', 'shell', 'server.path', 'tape', 'approvalTimeoutMs',
  'secrets.patterns', 'confinedRuns', 'confinement.acceptWeaker',
] as const;

export interface ReadSettings {
  settings: Settings;
  /** One line per value that was ignored, tightened or replaced, for the output channel. */
  notes: string[];
}

const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 200 ? `${s.slice(0, 197)}...` : s;
};

/** ordered reads a setting a repository may tighten: the person's value (or the default), made stricter by any stricter repository value. */
function ordered<T extends string>(key: string, tiers: readonly (readonly T[])[], fallback: T, l: Layers, notes: string[]): T {
  const order = tiers.flat();
  const is = (v: unknown): v is T => typeof v === 'string' && (order as readonly string[]).includes(v);
  const rank = (v: T) => tiers.findIndex((t) => t.includes(v));
  const given = l.person !== undefined ? l.person : l.default;
  let person: T = fallback;
  if (given !== undefined) {
    if (is(given)) {
      person = given;
    } else {
      person = order[0];
      notes.push(`admit.${key}: ${show(given)} is not one of ${order.join(', ')}; using ${order[0]}, the strictest`);
    }
  }
  let v = person;
  for (const r of l.repo) {
    if (r.value === undefined) continue;
    if (!is(r.value)) {
      notes.push(`admit.${key}: ${r.where} sets ${show(r.value)}, which is not one of ${order.join(', ')}; ignored`);
    } else if (rank(r.value) < rank(person)) {
      notes.push(`admit.${key}: ${r.where} tightens ${person} to ${r.value}`);
      if (rank(r.value) < rank(v)) v = r.value;
    } else if (r.value !== person) {
      notes.push(`admit.${key}: ${r.where} sets ${r.value}, which is not stricter than ${person}; ignored: a workspace may only tighten the gate`);
    }
  }
  return v;
}

/** personal reads a setting only the person chooses; every repository value of it is ignored. */
function personal(key: string, what: string, l: Layers, notes: string[]): unknown {
  const v = l.person !== undefined ? l.person : l.default;
  for (const r of l.repo) {
    if (r.value !== undefined && show(r.value) !== show(v)) {
      notes.push(`admit.${key}: ${r.where} sets ${show(r.value)}; ignored: only your user or machine settings choose ${what}`);
    }
  }
  return v;
}

/** readSettings reads every admit.* setting from its layers; trusted is `vscode.workspace.isTrusted`. */
export function readSettings(source: LayerSource, trusted = true): ReadSettings {
  const notes: string[] = [];
  let mode = ordered('mode', strictness.mode, defaults.mode, source('mode'), notes);
  let effects = ordered('effects', strictness.effects, defaults.effects, source('effects'), notes);
  const shell = ordered('shell', strictness.shell, defaults.shell, source('shell'), notes);

  const str = (key: string, what: string): string => {
    const v = personal(key, what, source(key), notes);
    if (v === undefined || v === null || v === '') return '';
    if (typeof v !== 'string') {
      notes.push(`admit.${key}: ${show(v)} is not a string; ignored`);
      return '';
    }
    return v;
  };
  const serverPath = str('server.path', 'the program that runs as the gate');
  const tape = str('tape', 'where the tape is written');

  let approvalTimeoutMs = defaults.approvalTimeoutMs;
  const t = personal('approvalTimeoutMs', 'how long an approval waits', source('approvalTimeoutMs'), notes);
  if (t !== undefined) {
    if (typeof t === 'number' && Number.isInteger(t) && t >= approvalTimeoutBounds.min && t <= approvalTimeoutBounds.max) {
      approvalTimeoutMs = t;
    } else {
      notes.push(`admit.approvalTimeoutMs: ${show(t)} is not a whole number of milliseconds from ${approvalTimeoutBounds.min} to ${approvalTimeoutBounds.max}; using ${defaults.approvalTimeoutMs}`);
    }
  }

  const confinedRunsSetting = ordered('confinedRuns', [['ask'], ['allow']] as const, defaults.confinedRuns, personOnly(source('confinedRuns'), 'confinedRuns', 'whether code runs without a question', notes), notes);

  const w = personal('confinement.acceptWeaker', 'whether a run may have fewer walls', source('confinement.acceptWeaker'), notes);
  if (w !== undefined && typeof w !== 'boolean') notes.push(`admit.confinement.acceptWeaker: ${show(w)} is not true or false; using false`);
  const acceptWeakerConfinement = w === true;

  const secretPatterns = readSecretPatterns(source('secrets.patterns'), notes);

  // Which prompt is shown changes nothing that is decided: the most specific layer wins.
  const m = source('approvals.modal');
  const modalValue = [...m.repo].reverse().find((r) => r.value !== undefined)?.value ?? m.person ?? m.default;
  const modal = modalValue === true;

  const restricted = !trusted;
  if (restricted && (mode !== 'enforce' || effects !== 'read-only')) {
    notes.push(`Restricted Mode: this workspace is not trusted, so the gate runs in enforce and read-only (the settings say ${mode}, ${effects}) until you trust it`);
  }
  if (restricted) {
    mode = 'enforce';
    effects = 'read-only';
  }
  const confinedRuns = restricted ? 'ask' : confinedRunsSetting;
  return { settings: { mode, effects, shell, serverPath, modal, approvalTimeoutMs, tape, restricted, secretPatterns, confinedRuns, acceptWeakerConfinement }, notes };
}

/** personOnly drops a setting's repository values, with a note for each: only the person chooses it. */
function personOnly(l: Layers, key: string, what: string, notes: string[]): Layers {
  personal(key, what, l, notes);
  return { person: l.person, default: l.default, repo: [] };
}

/**
 * readSecretPatterns reads admit.secrets.patterns: the person's patterns, and a
 * repository's patterns that ask about more files. A repository's "!PATTERN" would
 * exempt files from the question, so it is ignored with a note; so is anything that
 * is not a list of non-empty strings.
 */
function readSecretPatterns(l: Layers, notes: string[]): string[] {
  const list = (v: unknown, where: string): string[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x.trim() !== '')) {
      notes.push(`admit.secrets.patterns: ${where} sets ${show(v)}, which is not a list of patterns; ignored`);
      return [];
    }
    return v as string[];
  };
  const out = list(l.person !== undefined ? l.person : l.default, 'your settings');
  for (const r of l.repo) {
    for (const p of list(r.value, r.where)) {
      if (p.startsWith('!')) {
        notes.push(`admit.secrets.patterns: ${r.where} exempts ${show(p)}; ignored: only your user settings may exempt a file from the question`);
      } else if (!out.includes(p)) {
        out.push(p);
      }
    }
  }
  return out;
}

/** Where path settings are expanded: the home folder and the workspace folders. */
export interface PathContext {
  home: string;
  folders: readonly { name: string; path: string }[];
}

export type Expanded = { path: string } | { error: string };

/**
 * expandPath expands `~`, `${userHome}`, `${workspaceFolder}` (the first folder) and
 * `${workspaceFolder:NAME}` in a path setting, and requires the result to be absolute.
 * Any other `${...}` is an error that names it, rather than a folder of that name.
 */
export function expandPath(key: string, value: string, ctx: PathContext): Expanded {
  const what = `admit.${key} ${show(value)}`;
  let p = value;
  if (p === '~') p = ctx.home;
  else if (p.startsWith('~/')) p = path.join(ctx.home, p.slice(2));
  let error: string | undefined;
  p = p.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
    if (name === 'userHome') return ctx.home;
    if (name === 'workspaceFolder') {
      if (ctx.folders.length === 0) error ??= `${what} names \${workspaceFolder}, but no workspace folder is open`;
      return ctx.folders[0]?.path ?? whole;
    }
    if (name.startsWith('workspaceFolder:')) {
      const f = ctx.folders.find((x) => x.name === name.slice('workspaceFolder:'.length));
      if (!f) error ??= `${what} names ${whole}, but no workspace folder has that name`;
      return f?.path ?? whole;
    }
    error ??= `${what} uses ${whole}, which admit does not expand (it knows ~, \${userHome}, \${workspaceFolder} and \${workspaceFolder:NAME})`;
    return whole;
  });
  if (error) return { error };
  if (!path.isAbsolute(p)) {
    return { error: `${what} is a relative path; give an absolute one` };
  }
  return { path: path.resolve(p) };
}

/** What starting the server needs to know of the file system. */
export interface FileProbe {
  /** realpath is the path with every symbolic link resolved, or undefined when it does not exist. */
  realpath(p: string): string | undefined;
  /** isFile says whether p (after symbolic links) is a regular file. */
  isFile(p: string): boolean;
  /** isExecutable says whether the current user may execute p. */
  isExecutable(p: string): boolean;
}

export interface ServerContext extends PathContext {
  extensionPath: string;
  /** The PATH the extension host has. */
  pathEnv: string;
  probe: FileProbe;
  platform?: NodeJS.Platform;
}

export type ServerBinary =
  | { command: string; source: 'setting' | 'bundled' | 'PATH'; notes: string[] }
  | { error: string; notes: string[] };

function inside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** insideFolder names the workspace folder p is in (as written, or after symbolic links), if any. */
function insideFolder(p: string, real: string, ctx: ServerContext): string | undefined {
  for (const f of ctx.folders) {
    const fr = ctx.probe.realpath(f.path) ?? f.path;
    if (inside(p, f.path) || inside(real, f.path) || inside(p, fr) || inside(real, fr)) return f.path;
  }
  return undefined;
}

/** bundledServer is the binary shipped in the extension's bin/. */
export function bundledServer(extensionPath: string, platform = process.platform): string {
  return path.join(extensionPath, 'bin', platform === 'win32' ? 'admit.exe' : 'admit');
}

/**
 * resolveServer picks the binary the extension starts: the person's admit.server.path,
 * else the one shipped in the extension, else `admit` on PATH. A path setting that is
 * relative, missing, not an executable file, or inside a workspace folder (as written or
 * after symbolic links) is an error that names it: nothing is started. On PATH, relative
 * entries and entries inside a workspace folder are passed over, with a note.
 */
export function resolveServer(setting: string, ctx: ServerContext): ServerBinary {
  const notes: string[] = [];
  const fail = (error: string): ServerBinary => ({ error: `${error}. Nothing was started.`, notes });
  if (setting) {
    const e = expandPath('server.path', setting, ctx);
    if ('error' in e) return fail(e.error);
    const shown = `admit.server.path ${show(setting)}${e.path !== setting ? ` (${e.path})` : ''}`;
    const real = ctx.probe.realpath(e.path);
    if (real === undefined) return fail(`${shown} does not exist`);
    const folder = insideFolder(e.path, real, ctx);
    if (folder) return fail(`${shown} is inside the workspace folder ${folder}${real !== e.path ? ` (it resolves to ${real})` : ''}: a program the repository ships cannot be the gate`);
    if (!ctx.probe.isFile(e.path)) return fail(`${shown} is not a regular file`);
    if (!ctx.probe.isExecutable(e.path)) return fail(`${shown} is not executable`);
    return { command: e.path, source: 'setting', notes };
  }
  const bundled = bundledServer(ctx.extensionPath, ctx.platform);
  if (ctx.probe.realpath(bundled) !== undefined && ctx.probe.isFile(bundled) && ctx.probe.isExecutable(bundled)) {
    return { command: bundled, source: 'bundled', notes };
  }
  const name = ctx.platform === 'win32' ? 'admit.exe' : 'admit';
  for (const dir of ctx.pathEnv.split(path.delimiter)) {
    if (!dir) continue;
    if (!path.isAbsolute(dir)) {
      notes.push(`PATH entry ${show(dir)} is relative; not searched for admit`);
      continue;
    }
    const candidate = path.join(dir, name);
    const real = ctx.probe.realpath(candidate);
    if (real === undefined || !ctx.probe.isFile(candidate) || !ctx.probe.isExecutable(candidate)) continue;
    const folder = insideFolder(candidate, real, ctx);
    if (folder) {
      notes.push(`${candidate} on PATH is inside the workspace folder ${folder}; passed over`);
      continue;
    }
    return { command: candidate, source: 'PATH', notes };
  }
  return fail('No admit binary: admit.server.path is not set in your user settings, the extension has no bin/admit, and there is no admit on PATH outside the workspace folders');
}

/** ServerOptions are the initializationOptions the server gets. */
export interface ServerOptions {
  mode: AdmitMode;
  effects: AdmitEffects;
  shell: AdmitShell;
  approvalTimeoutMs: number;
  tape?: string;
  secretPatterns: string[];
  confinedRuns: ConfinedRuns;
  acceptWeakerConfinement: boolean;
}

/** serverOptions turns the settings into initialization options, with the tape's path expanded. */
export function serverOptions(s: Settings, ctx: PathContext): { options: ServerOptions } | { error: string } {
  const options: ServerOptions = {
    mode: s.mode, effects: s.effects, shell: s.shell, approvalTimeoutMs: s.approvalTimeoutMs,
    secretPatterns: s.secretPatterns, confinedRuns: s.confinedRuns, acceptWeakerConfinement: s.acceptWeakerConfinement,
  };
  if (s.tape) {
    const e = expandPath('tape', s.tape, ctx);
    if ('error' in e) return { error: `${e.error}. Nothing was started.` };
    options.tape = e.path;
  }
  return { options };
}
