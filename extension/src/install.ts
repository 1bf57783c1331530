// The admit binary that agents' hook configurations and MCP definitions name. They
// must name an absolute path that lasts: not the extension's own folder, which
// carries its version and goes with the next update (every hook would then run a
// binary that is gone), not a workspace, where an agent could replace it. So the
// bundled binary is copied to a per-user folder (installedBinary), replaced
// atomically when the bundled one differs (an upgrade, or a copy someone changed),
// and that folder is put on PATH in the editor's terminals.
import { createHash, randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

/** Where a platform keeps the person's own programs and data, from its environment. */
export interface InstallPlace {
  platform: NodeJS.Platform;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** binaryName is the admit binary's file name on a platform (the hooks find their entries by it). */
export function binaryName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'admit.exe' : 'admit';
}

const abs = (p: string | undefined, platform: NodeJS.Platform): string | undefined =>
  p && (platform === 'win32' ? path.win32.isAbsolute(p) : path.posix.isAbsolute(p)) ? p : undefined;

/**
 * installFolder is the folder the installed binary lives in: the per-user data folder
 * of the platform, which no extension update, workspace or reboot touches.
 *   Linux and the rest: $XDG_DATA_HOME/admit/bin, else ~/.local/share/admit/bin
 *   macOS: ~/Library/Application Support/admit/bin
 *   Windows: %LOCALAPPDATA%\admit\bin, else ~\AppData\Local\admit\bin
 * A relative XDG_DATA_HOME or LOCALAPPDATA is ignored, as the XDG spec says.
 */
export function installFolder(p: InstallPlace): string {
  const j = p.platform === 'win32' ? path.win32.join : path.posix.join;
  switch (p.platform) {
    case 'win32':
      return j(abs(p.env.LOCALAPPDATA, p.platform) ?? j(p.home, 'AppData', 'Local'), 'admit', 'bin');
    case 'darwin':
      return j(p.home, 'Library', 'Application Support', 'admit', 'bin');
    default:
      return j(abs(p.env.XDG_DATA_HOME, p.platform) ?? j(p.home, '.local', 'share'), 'admit', 'bin');
  }
}

/** installedBinary is the installed binary's absolute path. */
export function installedBinary(p: InstallPlace): string {
  return (p.platform === 'win32' ? path.win32.join : path.posix.join)(installFolder(p), binaryName(p.platform));
}

/** What an install did. */
export type InstallResult =
  | { kind: 'installed' | 'replaced' | 'current'; path: string }
  | { kind: 'failed'; path: string; error: string };

function sha256(file: string): string | undefined {
  try {
    return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/**
 * install copies bundled to target unless target already holds the same bytes. The
 * copy is written beside the target under a fresh name, made executable, flushed,
 * then renamed over it: a hook that starts the binary meanwhile runs the old one or
 * the new one, never half of one. A target that is a symbolic link, or a folder that
 * every user may write, is refused: the hooks would run what someone else chose.
 */
export function install(bundled: string, target: string, platform: NodeJS.Platform = process.platform): InstallResult {
  const fail = (error: string): InstallResult => ({ kind: 'failed', path: target, error });
  const want = sha256(bundled);
  if (want === undefined) return fail(`the extension has no admit binary at ${bundled}`);
  const dir = path.dirname(target);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  } catch (e) {
    return fail(`cannot make the folder ${dir}: ${(e as Error).message}`);
  }
  if (platform !== 'win32') {
    for (const d of [dir, path.dirname(dir)]) {
      const st = fs.statSync(d);
      if (st.mode & 0o002) return fail(`${d} is writable by every user, so anyone could replace the binary the hooks run; make it writable by you only (chmod o-w)`);
    }
  }
  let had = false;
  try {
    const st = fs.lstatSync(target);
    if (st.isSymbolicLink()) return fail(`${target} is a symbolic link; admit installs a file of its own there: remove the link`);
    if (!st.isFile()) return fail(`${target} is not a regular file`);
    had = true;
    const executable = platform === 'win32' || (st.mode & 0o111) !== 0;
    if (executable && sha256(target) === want) return { kind: 'current', path: target };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return fail(`${target}: ${(e as Error).message}`);
  }
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // wx: a fresh file of ours, never one planted at that name.
    const fd = fs.openSync(tmp, 'wx', 0o755);
    try {
      fs.writeFileSync(fd, fs.readFileSync(bundled));
      if (platform !== 'win32') fs.fchmodSync(fd, 0o755);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (sha256(tmp) !== want) throw new Error('the copy does not match the bundled binary');
    fs.renameSync(tmp, target);
  } catch (e) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // nothing to clean
    }
    const busy = platform === 'win32' && /EPERM|EBUSY|EACCES/.test(String((e as NodeJS.ErrnoException).code));
    return fail(busy ? `${target} is in use (a hook or an MCP server runs it); it is replaced at the next start` : `cannot write ${target}: ${(e as Error).message}`);
  }
  return { kind: had ? 'replaced' : 'installed', path: target };
}
