// The JSON-RPC errors the extension tells apart. Pure.

/** The server does not know the method: an older admit, or a feature not built yet. */
export const methodNotFound = -32601;
/** The params were refused; the message names the field and why (docs/protocol.md). */
export const invalidParams = -32602;

/** rpcCode is the JSON-RPC error code of e (vscode-languageclient's ResponseError), if it has one. */
export function rpcCode(e: unknown): number | undefined {
  const c = (e as { code?: unknown } | null)?.code;
  return typeof c === 'number' ? c : undefined;
}

/** rpcMessage is e's message, whatever e is. */
export function rpcMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** missingMethod is the sentence shown when the server answers -32601 for a method the editor needs. */
export function missingMethod(method: string, what: string): string {
  return `This admit server does not know ${method} (method not found), so ${what} cannot be shown or changed here. Update admit (the server) to a version that has it.`;
}
