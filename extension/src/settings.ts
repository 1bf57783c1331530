// The admit.* settings, and the initialization options the server gets from them.
// Pure: takes a getter so tests need no VS Code.
import * as path from 'path';
import type { AdmitEffects, AdmitMode, AdmitShell } from './protocol';

export type Getter = <T>(key: string, fallback: T) => T;

export interface Settings {
  mode: AdmitMode;
  effects: AdmitEffects;
  shell: AdmitShell;
  serverPath: string;
  modal: boolean;
  approvalTimeoutMs: number;
  tape: string;
}

export function readSettings(get: Getter): Settings {
  return {
    mode: get<AdmitMode>('mode', 'warn'),
    effects: get<AdmitEffects>('effects', 'read-only'),
    shell: get<AdmitShell>('shell', 'analyze'),
    serverPath: get<string>('server.path', ''),
    modal: get<boolean>('approvals.modal', false),
    approvalTimeoutMs: get<number>('approvalTimeoutMs', 120000),
    tape: get<string>('tape', ''),
  };
}

/** ServerOptions are the initializationOptions, and the `settings.admit` of didChangeConfiguration. */
export interface ServerOptions {
  mode: AdmitMode;
  effects: AdmitEffects;
  shell: AdmitShell;
  approvalTimeoutMs: number;
  tape?: string;
}

export function serverOptions(s: Settings, home = process.env.HOME ?? ''): ServerOptions {
  const o: ServerOptions = { mode: s.mode, effects: s.effects, shell: s.shell, approvalTimeoutMs: s.approvalTimeoutMs };
  if (s.tape) o.tape = expandHome(s.tape, home);
  return o;
}

export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

/**
 * resolveServerPath picks the binary: the admit.server.path setting, else the binary
 * shipped in the extension's bin/, else `admit` on PATH.
 */
export function resolveServerPath(setting: string, extensionPath: string, exists: (p: string) => boolean, home = process.env.HOME ?? ''): string {
  if (setting) return expandHome(setting, home);
  const bundled = path.join(extensionPath, 'bin', process.platform === 'win32' ? 'admit.exe' : 'admit');
  if (exists(bundled)) return bundled;
  return 'admit';
}
