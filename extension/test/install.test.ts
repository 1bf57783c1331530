import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { install, installedBinary, installFolder } from '../src/install';

test('the installed binary lives in the per-user data folder of each platform, not the extension or a workspace', () => {
  assert.equal(installedBinary({ platform: 'linux', home: '/home/me', env: {} }), '/home/me/.local/share/admit/bin/admit');
  assert.equal(installedBinary({ platform: 'linux', home: '/home/me', env: { XDG_DATA_HOME: '/data/me' } }), '/data/me/admit/bin/admit');
  // A relative XDG_DATA_HOME is ignored (the XDG spec): it would move with the working folder.
  assert.equal(installedBinary({ platform: 'linux', home: '/home/me', env: { XDG_DATA_HOME: 'rel' } }), '/home/me/.local/share/admit/bin/admit');
  assert.equal(installedBinary({ platform: 'darwin', home: '/Users/me', env: { XDG_DATA_HOME: '/x' } }), '/Users/me/Library/Application Support/admit/bin/admit');
  assert.equal(installedBinary({ platform: 'win32', home: 'C:\\Users\\me', env: { LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' } }), 'C:\\Users\\me\\AppData\\Local\\admit\\bin\\admit.exe');
  assert.equal(installedBinary({ platform: 'win32', home: 'C:\\Users\\me', env: {} }), 'C:\\Users\\me\\AppData\\Local\\admit\\bin\\admit.exe');
  assert.equal(installFolder({ platform: 'freebsd', home: '/home/me', env: {} }), '/home/me/.local/share/admit/bin');
});

function scratch(): { dir: string; bundled: string; target: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-install-'));
  fs.chmodSync(dir, 0o755);
  const bundled = path.join(dir, 'ext-0.1.0', 'bin', 'admit');
  fs.mkdirSync(path.dirname(bundled), { recursive: true });
  fs.writeFileSync(bundled, '#!/bin/sh\necho v1\n', { mode: 0o755 });
  return { dir, bundled, target: path.join(dir, 'data', 'admit', 'bin', 'admit') };
}

test('install copies the bundled binary once, executable; the same bytes are left alone; an upgrade replaces it whole', (t) => {
  const s = scratch();
  t.after(() => fs.rmSync(s.dir, { recursive: true, force: true }));
  let r = install(s.bundled, s.target, 'linux');
  assert.deepEqual(r, { kind: 'installed', path: s.target });
  assert.equal(fs.readFileSync(s.target, 'utf8'), '#!/bin/sh\necho v1\n');
  assert.equal(fs.statSync(s.target).mode & 0o777, 0o755);
  const ino = fs.statSync(s.target).ino;
  r = install(s.bundled, s.target, 'linux');
  assert.equal(r.kind, 'current');
  assert.equal(fs.statSync(s.target).ino, ino, 'the same bytes are not written again');
  // The next version of the extension: a new file takes the name at once (a rename), no temporary is left.
  fs.writeFileSync(s.bundled, '#!/bin/sh\necho v2\n');
  r = install(s.bundled, s.target, 'linux');
  assert.equal(r.kind, 'replaced');
  assert.equal(fs.readFileSync(s.target, 'utf8'), '#!/bin/sh\necho v2\n');
  assert.notEqual(fs.statSync(s.target).ino, ino, 'replaced by a rename, not rewritten in place');
  assert.deepEqual(fs.readdirSync(path.dirname(s.target)), ['admit']);
  // A copy someone changed (or made not executable) is put back.
  fs.writeFileSync(s.target, 'tampered');
  assert.equal(install(s.bundled, s.target, 'linux').kind, 'replaced');
  assert.equal(fs.readFileSync(s.target, 'utf8'), '#!/bin/sh\necho v2\n');
  fs.chmodSync(s.target, 0o644);
  assert.equal(install(s.bundled, s.target, 'linux').kind, 'replaced');
  assert.equal(fs.statSync(s.target).mode & 0o111, 0o111);
});

test('install refuses a symbolic link at the target, a folder every user may write, and a missing bundled binary', (t) => {
  const s = scratch();
  t.after(() => fs.rmSync(s.dir, { recursive: true, force: true }));
  fs.mkdirSync(path.dirname(s.target), { recursive: true, mode: 0o755 });
  const elsewhere = path.join(s.dir, 'elsewhere');
  fs.writeFileSync(elsewhere, 'not admit');
  fs.symlinkSync(elsewhere, s.target);
  let r = install(s.bundled, s.target, 'linux');
  assert.equal(r.kind, 'failed');
  assert.match((r as { error: string }).error, /symbolic link/);
  assert.equal(fs.readFileSync(elsewhere, 'utf8'), 'not admit', 'nothing written through the link');
  fs.rmSync(s.target);
  fs.chmodSync(path.dirname(s.target), 0o777);
  r = install(s.bundled, s.target, 'linux');
  assert.equal(r.kind, 'failed');
  assert.match((r as { error: string }).error, /writable by every user/);
  assert.ok(!fs.existsSync(s.target));
  fs.chmodSync(path.dirname(s.target), 0o755);
  r = install(path.join(s.dir, 'nothing'), s.target, 'linux');
  assert.equal(r.kind, 'failed');
  assert.match((r as { error: string }).error, /no admit binary/);
});
