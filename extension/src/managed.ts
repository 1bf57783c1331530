// "Managed by your organisation": what the organisation's managed layer pins (the
// server's State.managed, docs/teams.md), and the export of decisions to the team's
// collector (State.export). Pure: a state in, text out. Every value comes from the
// server, which read it from an administrator's file; it is still drawn literal.
import type { AdmitState } from './protocol';
import { mdCode, mdText, plain } from './text';

/** The managed layer as the server reports it; absent fields pin nothing. */
export interface ManagedView {
  paths: string[];
  mode?: string;
  effects?: string;
  shell?: string;
  confinedRuns?: string;
  secretPatterns: string[];
  rules: string[];
  hooks: string[];
  export?: string;
  error?: string;
}

/** The export's counts (internal/otelexport's Stats). */
export interface ExportView {
  endpoint?: string;
  queued: number;
  sent: number;
  failed: number;
  dropped: number;
  retries: number;
  lastError?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.trunc(v) : 0);

/** managedOf reads State.managed, or undefined when no managed layer is in force. */
export function managedOf(st: AdmitState): ManagedView | undefined {
  const m = st.managed as Record<string, unknown> | undefined;
  if (!m || typeof m !== 'object') return undefined;
  return {
    paths: strs(m.paths), mode: str(m.mode), effects: str(m.effects), shell: str(m.shell), confinedRuns: str(m.confinedRuns),
    secretPatterns: strs(m.secretPatterns), rules: strs(m.rules), hooks: strs(m.hooks), export: str(m.export), error: str(m.error),
  };
}

/** exportOf reads State.export, or undefined when decisions are not exported. */
export function exportOf(st: AdmitState): ExportView | undefined {
  const x = st.export as Record<string, unknown> | undefined;
  if (!x || typeof x !== 'object') return undefined;
  return {
    endpoint: str(x.endpoint), queued: num(x.queued), sent: num(x.sent), failed: num(x.failed), dropped: num(x.dropped),
    retries: num(x.retries), lastError: str(x.lastError),
  };
}

/** managedStatus is the status item's word for the managed layer (and the export's losses), or undefined. */
export function managedStatus(st: AdmitState): string[] {
  const out: string[] = [];
  const m = managedOf(st);
  if (m?.error) out.push('$(error) managed policy invalid');
  else if (m) out.push('$(organization) managed');
  const x = exportOf(st);
  if (x && x.failed + x.dropped > 0) out.push(`$(warning) ${x.failed + x.dropped} not exported`);
  return out;
}

/** The settings a managed layer can pin, as the person's admit.* keys name them. */
export type PinnedSetting = 'mode' | 'effects' | 'shell' | 'confinedRuns';

/**
 * pinOf is what the managed layer pins a setting to, or undefined. For effects it is the
 * ceiling: `read-only` keeps the gate read-only; `workspace-write` pins nothing.
 */
export function pinOf(st: AdmitState | undefined, key: PinnedSetting): string | undefined {
  const m = st && managedOf(st);
  if (!m || m.error) return undefined;
  if (key === 'effects') return m.effects === 'read-only' ? 'read-only' : undefined;
  return m[key];
}

/** where names the managed files, for messages. */
function where(m: ManagedView): string {
  return m.paths.length ? m.paths.join(', ') : 'the managed policy';
}

/** managedTooltip is the tooltip's section on the managed layer: each pin, marked as the organisation's. */
export function managedTooltip(st: AdmitState): string | undefined {
  const m = managedOf(st);
  if (!m) return undefined;
  if (m.error) {
    return `**Your organisation's managed policy cannot be used**, so every call is refused (${mdCode('managed-invalid')}): ${mdText(m.error)}`;
  }
  const lines = [`**Managed by your organisation** (${m.paths.map(mdCode).join(', ')}): these settings are pinned, and neither your settings nor the workspace's can loosen them.`];
  const pin = (label: string, v: string | undefined) => v && lines.push(`- ${label}: ${mdCode(v)}`);
  pin('mode', m.mode);
  pin('effects at most', m.effects);
  pin('shell', m.shell);
  pin('confined runs', m.confinedRuns);
  if (m.secretPatterns.length) lines.push(`- secret files: ${m.secretPatterns.map(mdCode).join(', ')}`);
  if (m.rules.length) lines.push(`- rules: ${m.rules.map(mdCode).join(', ')}`);
  if (m.hooks.length) lines.push(`- the agents' hooks in their managed places: ${m.hooks.map(mdCode).join(', ')}`);
  pin('decisions exported to', m.export);
  return lines.join('\n');
}

/** exportTooltip is the tooltip's line on the export: where, and what was sent and what could not be. */
export function exportTooltip(st: AdmitState): string | undefined {
  const x = exportOf(st);
  if (!x) return undefined;
  const to = x.endpoint ? ` to ${mdCode(x.endpoint)}` : ' (to the collector the OTEL_* variables name)';
  const lost = x.failed + x.dropped;
  const lines = [
    `Decisions exported${to}: sent ${x.sent} · waiting ${x.queued} · ${lost ? '**' : ''}could not be sent ${x.failed} · dropped ${x.dropped}${lost ? '**' : ''} · retries ${x.retries}. The tape keeps every decision.`,
  ];
  if (x.lastError) lines.push('', `Last export error: ${mdText(x.lastError)}`);
  return lines.join('\n');
}

/**
 * managedNotices are the messages for the person's own settings that the managed layer
 * overrides (mode, effects, shell, confined runs): plain text, one per setting.
 */
export function managedNotices(st: AdmitState, mine: Partial<Record<PinnedSetting, string>>): string[] {
  const m = managedOf(st);
  if (!m || m.error) return [];
  const out: string[] = [];
  for (const key of ['mode', 'effects', 'shell', 'confinedRuns'] as const) {
    const pin = pinOf(st, key);
    const v = mine[key];
    if (pin && v && v !== pin) {
      out.push(plain(`admit: admit.${key} is managed by your organisation (${pin}, ${where(m)}): your setting ${v} is not used.`));
    }
  }
  return out;
}
