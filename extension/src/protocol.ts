// Method names of the admit protocol (docs/protocol.md). The types live in
// ../api.d.ts, which is published to agents.
export type {
  AdmitApi, AdmitDecidedBy, AdmitEffects, AdmitMode, AdmitOutcome, AdmitShell, AdmitState, Decision, Verdict,
} from '../api';
import type { AdmitDecidedBy, AdmitOutcome } from '../api';

export const Methods = {
  check: 'admit/check',
  observe: 'admit/observe',
  run: 'admit/run',
  openSession: 'admit/openSession',
  closeSession: 'admit/closeSession',
  setMode: 'admit/setMode',
  state: 'admit/state',
  tape: 'admit/tape',
  revoke: 'admit/revoke',
  read: 'admit/read',
  edit: 'admit/edit',
  write: 'admit/write',
  reviewPolicy: 'admit/reviewPolicy',
  trustPolicy: 'admit/trustPolicy',
  distrustPolicy: 'admit/distrustPolicy',
  rules: 'admit/rules',
  addRule: 'admit/addRule',
  removeRule: 'admit/removeRule',
  suggestRules: 'admit/suggestRules',
  replay: 'admit/replay',
  agents: 'admit/agents',
  connectAgent: 'admit/connectAgent',
  disconnectAgent: 'admit/disconnectAgent',
  // server to client
  approve: 'admit/approve',
  approvalCancelled: 'admit/approvalCancelled',
  didChangeState: 'admit/didChangeState',
  didDecide: 'admit/didDecide',
} as const;

/** The rule an "always allow" answer writes, as the server offers it. */
export interface OfferedRule {
  match: string;
  decision: 'allow';
  scope: 'workspace' | 'user';
  /** The kinds of effect the rule is limited to (docs/rules-person.md). */
  effects?: RuleEffects;
  /** What the rule covers, in words. */
  covers?: string;
}

/** The kinds of effect a person's rule covers: what it reads, where its code comes from, the hosts it reaches, what it sends. */
export interface RuleEffects {
  reads?: string[];
  code?: string[];
  hosts?: string[];
  sends?: string[];
}

/** One argument of a structured call, as the prompt shows it. */
export interface CallField {
  name: string;
  value: string;
}

/** Params of the server's `admit/approve` request (docs/protocol.md, "Server to client"). */
export interface ApproveParams {
  id: string;
  session?: string;
  tool: string;
  /** A short form of the call; it may be cut. */
  summary?: string;
  reason?: string;
  timeoutMs?: number;
  /** The agent that asked, from the call's context. */
  agent?: string;
  /** The whole command line, when the call is one. */
  command?: string;
  cwd?: string;
  /** The paths the call reads or writes. */
  targets?: string[];
  /** What a run would be confined by. */
  confinement?: string;
  /** The rule "always allow" writes; offered only for some calls. */
  rule?: OfferedRule;
  /** Why no rule is offered, when none is. */
  noRule?: string;
  /** What a write puts in the file. */
  content?: string;
  /** An edit's change, as a unified diff. */
  diff?: string;
  /** What the protected file the call changes can do. */
  protects?: string;
  /** The whole file as the call leaves it (a write's content, an edit applied), for the diff editor. */
  proposed?: string;
  /** The path the call names, the file proposed is for. */
  proposedFor?: string;
  /** A structured call's arguments, readable. */
  fields?: CallField[];
}

export type ApprovalAnswer = 'allow-once' | 'allow-session' | 'allow-always' | 'deny';

/** The trust of the workspace's policy file (docs/trust.md). */
export type PolicyTrust = 'built-in' | 'tightening' | 'trusted' | 'untrusted';

/** The result of `admit/reviewPolicy`. */
export interface PolicyReview {
  /** The policy file in force; empty under the built-in policy. */
  path: string;
  /** SHA-256 of the file's path and content: what admit/trustPolicy trusts. */
  sum?: string;
  trust: PolicyTrust;
  /** What the file would widen, in words. */
  widens: string[];
  /** The file's text, in the version of sum. */
  content?: string;
  /** The built-in policy, as a policy file. */
  builtIn: string;
}

/** Where a rule lives: every workspace (`user`) or this one (`workspace`); both are kept outside the repository. */
export type RuleScope = 'user' | 'workspace';

/** One of the person's rules (docs/protocol.md). */
export interface PersonRule {
  match: string;
  decision: 'allow' | 'ask' | 'deny';
  /** Where the rule came from: `user`, `workspace`, or the repository's policy file. */
  source: string;
  note?: string;
  examples?: string[];
  notExamples?: string[];
}

/** The result of `admit/rules`, `admit/addRule` and `admit/removeRule`. */
export interface RulesResult {
  rules: PersonRule[];
  files: { user?: string; workspace?: string };
}

/** One rule `admit/suggestRules` proposes, with how often it would have matched. */
export interface RuleSuggestion {
  match: string;
  decision: 'allow' | 'ask' | 'deny';
  /** The kinds of effect the rule is limited to; added with it. */
  effects?: RuleEffects;
  /** What the rule covers, in words. */
  covers?: string;
  count: number;
  examples: string[];
  /** Questions of the tape the rule would still ask. */
  notCovered?: string[];
}

/** Params of `admit/tape`. */
export interface TapeQuery {
  since?: string;
  limit?: number;
  verdict?: 'allow' | 'deny';
  rule?: string;
  tool?: string;
  session?: string;
}

/** One tape line as the server returns it; only the fields the extension reads are typed. */
export interface TapeRecord {
  id?: string;
  time?: string;
  session?: string;
  mode?: string;
  verdict?: string;
  allowed?: boolean;
  rule?: string;
  reason?: string;
  /** The policy's answer class (absent on tapes written before the field existed). */
  outcome?: AdmitOutcome;
  decidedBy?: AdmitDecidedBy;
  /** The rule's remedy, from the server's catalogue (absent on old tapes). */
  remedy?: string;
  tool?: string;
  args?: unknown;
  command?: string;
  cwd?: string;
  context?: { agent?: unknown; turn?: unknown; task?: unknown; [k: string]: unknown };
  targets?: string[];
  policyTrust?: string;
  [extra: string]: unknown;
}

/** One file of a change to an agent's configuration: its whole text before and after. */
export interface FileChange {
  path: string;
  before: string;
  after: string;
  /** The file does not exist yet. */
  created?: boolean;
  /** The change removes the file. */
  removed?: boolean;
  /** The file's mode after, when admit sets it ("0755"). */
  mode?: string;
}

/** What connecting (or disconnecting) would write; `sum` names exactly this change. */
export interface AgentChange {
  diff: string;
  files: FileChange[];
  sum: string;
}

/** The states of an agent's connection to admit (docs/protocol.md, "Connecting the agents"). */
export type AgentState = 'not-connected' | 'connected' | 'stale' | 'outdated' | 'unreadable' | 'unsupported';

/** One agent host, as admit/agents reports it. */
export interface AgentStatus {
  /** The adapter's name: `claude-code`, `copilot`, ... (the agent a hook's calls name). */
  host: string;
  /** The product: "Claude Code", ... */
  agent: string;
  installed: boolean;
  found?: string[];
  state: AgentState | (string & {});
  connected: boolean;
  config: string;
  files: string[];
  binary?: string;
  binaryExists?: boolean;
  problem?: string;
  /** Where the person's own settings switch the host's hooks off. */
  hooksOff?: string;
  /** Why the host will not run admit's connected entries, in a few words ("not trusted"), and in full. */
  inert?: string;
  inertWhy?: string;
  change?: AgentChange;
  undo?: AgentChange;
  missingBinary?: string;
  missingBinaryBlocks?: boolean;
  notes?: string[];
}

/** The result of `admit/agents`. */
export interface AgentsResult {
  binary: string;
  /** Why that binary cannot be named in a hook. */
  binaryProblem?: string;
  agents: AgentStatus[];
}

/** The result of `admit/connectAgent` and `admit/disconnectAgent`. */
export interface AgentChangeResult {
  status: AgentStatus;
  written?: string[];
  removed?: string[];
  backups?: string[];
}
