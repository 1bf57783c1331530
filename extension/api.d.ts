/**
 * The API the admit extension exports to other extensions (agents).
 *
 *   const ext = vscode.extensions.getExtension<AdmitApi>('admit.admit');
 *   const admit = await ext!.activate();
 *   const v = await admit.check({ tool: 'edit_file', args: { path: 'src/a.ts' } });
 *   if (!v.allowed) return v.toolError;   // hand this back to the model; nothing ran
 *
 * Every method sends the matching `admit/*` request to the admit server (see
 * the repository's docs/protocol.md) and resolves with its result. The same
 * methods are commands (`admit.check`, `admit.observe`, ...) taking the params object
 * as their single argument, for extensions that use `vscode.commands.executeCommand`.
 *
 * Fail closed: when the server cannot be reached (not started, crashed mid-call,
 * restarting), `check`, `run`, `edit` and `write` resolve with a refusal
 * (`allowed: false`, rule `server-unavailable`) rather than throwing, so an agent that
 * only looks at `allowed` never runs an unchecked call. `observe`, `read`,
 * `openSession` and `closeSession` reject with an Error instead.
 *
 * This file has no imports so that it can be copied into an agent's sources as is;
 * the one VS Code type it uses (`Event`) is declared structurally below.
 */

/** The gate's mode for the whole server. */
export type AdmitMode = 'off' | 'warn' | 'enforce';
/** What an agent's calls may change. */
export type AdmitEffects = 'read-only' | 'workspace-write';
/** How shell command lines are judged: as `bash -c` reads them, plain argv only, or as the interactive shell of a terminal reads them. */
export type AdmitShell = 'analyze' | 'refuse' | 'bash-interactive' | 'zsh' | 'fish' | 'portable';

/** A VS Code style event: call it with a listener, dispose the result to stop. */
export interface AdmitEvent<T> {
  (listener: (e: T) => unknown, thisArgs?: unknown, disposables?: { dispose(): unknown }[]): { dispose(): unknown };
}

/** Optional context recorded on the tape with a call. */
export interface AdmitContext {
  turn?: number | string;
  task?: string;
  agent?: string;
}

/** The policy's answer to a call, before the mode and any person: allowed, asked of a person, or denied. */
export type AdmitOutcome = 'allow' | 'ask' | 'deny';

/**
 * Who settled a call: `rule` (the policy alone), or for an asked call `person`,
 * `grant` (an earlier allow-for-this-session), `timeout`, `cancelled`,
 * `session-closed`, `shutdown`, `disconnected`, `headless` (nobody to ask).
 */
export type AdmitDecidedBy = 'rule' | 'person' | 'grant' | 'timeout' | 'cancelled' | 'session-closed' | 'shutdown' | 'disconnected' | 'headless' | (string & {});

/** The decision on one syscall. */
export interface Verdict {
  /** The tape record's id. */
  id: string;
  verdict: 'allow' | 'deny';
  /** What the agent must do: true when the verdict is allow, or when the mode is not enforce. */
  allowed: boolean;
  mode: AdmitMode;
  /** The rule that decided, e.g. `allowed`, `not-in-allow-list`, `human-approved`. */
  rule: string;
  /** Written so a model can act on it. */
  reason: string;
  /** The policy's answer class; `verdict` and `allowed` say what came of it (a person, the mode). */
  outcome?: AdmitOutcome;
  /** Who settled the call. */
  decidedBy?: AdmitDecidedBy;
  /** What a person or a model can do about this rule (from the server's rule catalogue). */
  remedy?: string;
  kind?: 'read' | 'write';
  targets?: string[];
  /** The trust of the workspace policy file the decision was made under; absent under the built-in policy. */
  policyTrust?: 'tightening' | 'trusted' | 'untrusted';
  /** On a refusal: the JSON text to hand back to the model (nothing was executed). */
  toolError?: string;
  /** The agent the call's context names (`claude-code`, ... for the hooks). */
  agent?: string;
  /** The server may add fields. */
  [extra: string]: unknown;
}

/** A decision as announced by `admit/didDecide`: the Verdict with the call's tool and summary. */
export interface Decision extends Verdict {
  tool: string;
  summary?: string;
  session?: string;
  time?: string;
}

export interface CheckParams {
  session?: string;
  tool: string;
  args?: Record<string, unknown>;
  command?: string;
  cwd?: string;
  context?: AdmitContext;
}

export interface ObserveParams {
  session?: string;
  paths?: string[];
  dirs?: string[];
}
export interface ObserveResult {
  observed: unknown;
}

export interface RunParams {
  session?: string;
  command: string;
  cwd?: string;
  timeoutMs?: number;
}
export interface RunResult extends Verdict {
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  truncated?: boolean;
  effects?: { added?: string[]; removed?: string[]; changed?: string[]; complete?: boolean };
  verified?: boolean;
  detail?: string;
}

export interface ReadParams {
  session?: string;
  path: string;
}
export interface ReadResult {
  content: string;
  hash: string;
  size: number;
}

export interface EditParams {
  session?: string;
  path: string;
  oldText: string;
  newText: string;
  replaceAll?: boolean;
  expectHash: string;
}
export interface WriteParams {
  session?: string;
  path: string;
  content: string;
  expectHash?: string;
}
export interface WriteResult extends Verdict {
  hash?: string;
  verified?: boolean;
}

export interface SessionBounds {
  maxSteps?: number;
  maxRetries?: number;
  timeoutMs?: number;
  toolTimeoutMs?: number;
  maxOutputBytes?: number;
  maxRequestChars?: number;
  maxMemoryMb?: number;
  maxFingerprintEntries?: number;
}

export interface OpenSessionParams {
  label: string;
  /** Tool schemas, as the agent hands them to its model. */
  tools?: unknown[];
  allow?: string[];
  needsHuman?: string[];
  mutators?: string[];
  writeRoots?: string[];
  effects?: AdmitEffects;
  bounds?: SessionBounds;
}
export interface OpenSessionResult {
  session: string;
}
export interface CloseSessionParams {
  session: string;
}

/** The server's state, pushed with `admit/didChangeState`. */
export interface AdmitState {
  mode: AdmitMode;
  effects: AdmitEffects;
  shell: AdmitShell;
  roots: string[];
  counts: { allowed: number; denied: number; wouldDeny: number; pending: number };
  tape: string;
  /** Why the tape cannot be written; every call is refused in enforce mode while it is set. */
  tapeError?: string;
  /** Why the workspace policy file cannot be used; every call is refused (policy-invalid) while it is set. */
  policyError?: string;
  /** The policy file in force, or `built-in`. */
  policy?: string;
  /** The trust of the workspace's policy file: `untrusted` only tightens until the person trusts that exact file. */
  policyTrust?: 'built-in' | 'tightening' | 'trusted' | 'untrusted';
  /** What an untrusted policy file would widen, were the person to trust it. */
  policyWidens?: string[];
  /** The unix socket other local agents reach this gate through (ADMIT_SOCKET in terminals). */
  socket?: string;
  /** The repository's files that switch the agents' own hooks off, so admit's hook is never called there. */
  hooksOff?: { agent: string; file: string; setting: string }[];
  [extra: string]: unknown;
}

export interface AdmitApi {
  check(params: CheckParams): Promise<Verdict>;
  observe(params: ObserveParams): Promise<ObserveResult>;
  run(params: RunParams): Promise<RunResult>;
  read(params: ReadParams): Promise<ReadResult>;
  edit(params: EditParams): Promise<WriteResult>;
  write(params: WriteParams): Promise<WriteResult>;
  openSession(params: OpenSessionParams): Promise<OpenSessionResult>;
  closeSession(params: CloseSessionParams): Promise<Record<string, never>>;
  /** Fires for every decision the server announces (`admit/didDecide`). */
  readonly onDidDecide: AdmitEvent<Decision>;
}
