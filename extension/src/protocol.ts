// Method names of the admit protocol (DESIGN.md, "Protocol"). The types live in
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
  // server to client
  approve: 'admit/approve',
  approvalCancelled: 'admit/approvalCancelled',
  didChangeState: 'admit/didChangeState',
  didDecide: 'admit/didDecide',
} as const;

/** Params of the server's `admit/approve` request. */
export interface ApproveParams {
  id: string;
  session?: string;
  tool: string;
  summary?: string;
  reason?: string;
  timeoutMs?: number;
}

export type ApprovalAnswer = 'allow-once' | 'allow-session' | 'deny';

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
  [extra: string]: unknown;
}
