// The API for agents: each method is one admit/* request. When the server cannot be
// reached, the calls that gate an action resolve with a refusal (fail closed).
import type * as vscode from 'vscode';
import type { AdmitApi, Decision, Verdict } from './protocol';
import { Methods } from './protocol';

export type Requester = <R>(method: string, params: unknown) => Promise<R>;

/** unavailableVerdict is the refusal an agent gets when there is no server to ask. */
export function unavailableVerdict(method: string, err: unknown): Verdict {
  const why = err instanceof Error ? err.message : String(err);
  const reason = `The admit gate could not be reached (${why}), so ${method} was not admitted. Nothing was executed. Retry after the admit server is running again (the status bar shows it).`;
  return {
    id: '',
    verdict: 'deny',
    allowed: false,
    mode: 'enforce',
    rule: 'server-unavailable',
    reason,
    toolError: JSON.stringify({ error: 'refused by admit', executed: false, rule: 'server-unavailable', reason }),
  };
}

/** The methods that gate an action, and so fail closed with a refusal. */
export const gatedMethods = ['check', 'run', 'edit', 'write'] as const;
/** The methods that return data, and so reject when the server is away. */
export const plainMethods = ['observe', 'read', 'openSession', 'closeSession'] as const;

export function makeApi(
  request: Requester,
  onDidDecide: vscode.Event<Decision>,
  isUnavailable: (e: unknown) => boolean,
  onVerdict?: (params: unknown, verdict: unknown) => void,
): AdmitApi {
  const gated = (method: string) => async (params: unknown) => {
    try {
      const v = await request(method, params ?? {});
      onVerdict?.(params, v);
      return v;
    } catch (e) {
      if (isUnavailable(e)) return unavailableVerdict(method, e);
      throw e;
    }
  };
  const plain = (method: string) => (params: unknown) => request(method, params ?? {});
  return {
    check: gated(Methods.check),
    run: gated(Methods.run),
    edit: gated(Methods.edit),
    write: gated(Methods.write),
    observe: plain(Methods.observe),
    read: plain(Methods.read),
    openSession: plain(Methods.openSession),
    closeSession: plain(Methods.closeSession),
    onDidDecide,
  } as AdmitApi;
}
