// The person's settings file, $XDG_CONFIG_HOME/admit/settings.json (else
// ~/.config/admit/settings.json, as gate.DefaultRulesDir): the mode and effect mode a
// hook uses when it decides without the editor (internal/cli/settings.go; admit connect
// --effects E --mode M writes it too). The extension writes the mode and effects of the
// person's *user* settings there, so an agent run in a terminal decides as the editor's
// does; a workspace's settings never reach it (a repository must not loosen the gate for
// every other folder). Nothing is written until the person chooses a value in their user
// settings: the file's absence is admit's default (enforce, read-only).
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { AdmitEffects, AdmitMode } from './protocol';

export interface PersonSettings {
  mode?: AdmitMode;
  effects?: AdmitEffects;
}

/** personSettingsPath is the file's path; a relative XDG_CONFIG_HOME is ignored, as the Go side does. */
export function personSettingsPath(env: NodeJS.ProcessEnv, home: string): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config');
  return path.join(base, 'admit', 'settings.json');
}

/**
 * syncPersonSettings writes want's values into the file at file, keeping a value want leaves
 * unset as the file has it, and reports whether it wrote. A file that holds no JSON object is
 * replaced (the gate refuses to decide under it anyway); the write is atomic (a temporary file
 * renamed over it), readable by the person alone.
 */
export async function syncPersonSettings(file: string, want: PersonSettings): Promise<'written' | 'unchanged'> {
  let cur: PersonSettings = {};
  try {
    const parsed: unknown = JSON.parse(await fsp.readFile(file, 'utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const p = parsed as Record<string, unknown>;
      if (typeof p.mode === 'string') cur.mode = p.mode as AdmitMode;
      if (typeof p.effects === 'string') cur.effects = p.effects as AdmitEffects;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && !(e instanceof SyntaxError)) throw e;
  }
  const next: PersonSettings = { ...cur };
  if (want.mode) next.mode = want.mode;
  if (want.effects) next.effects = want.effects;
  if (next.mode === cur.mode && next.effects === cur.effects) return 'unchanged';
  // Only the keys the gate reads: it refuses a file with any other.
  const body: PersonSettings = {};
  if (next.mode) body.mode = next.mode;
  if (next.effects) body.effects = next.effects;
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await fsp.writeFile(tmp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
    await fsp.rename(tmp, file);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
  return 'written';
}
