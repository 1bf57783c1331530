import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { personSettingsPath, syncPersonSettings } from '../src/personSettings';

test("the person's settings file is the one the Go side reads: $XDG_CONFIG_HOME/admit, else ~/.config/admit", () => {
  assert.equal(personSettingsPath({ XDG_CONFIG_HOME: '/cfg/me' }, '/home/me'), '/cfg/me/admit/settings.json');
  assert.equal(personSettingsPath({}, '/home/me'), '/home/me/.config/admit/settings.json');
  // A relative XDG_CONFIG_HOME is ignored, as gate.DefaultRulesDir ignores it.
  assert.equal(personSettingsPath({ XDG_CONFIG_HOME: 'rel' }, '/home/me'), '/home/me/.config/admit/settings.json');
});

test("the person's choice is written once, keeps what it leaves unset, and holds only the keys the gate reads", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-person-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'admit', 'settings.json');
  assert.equal(await syncPersonSettings(file, { effects: 'workspace-write' }), 'written');
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { effects: 'workspace-write' });
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(await syncPersonSettings(file, { effects: 'workspace-write' }), 'unchanged');
  assert.equal(await syncPersonSettings(file, { mode: 'enforce' }), 'written');
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { mode: 'enforce', effects: 'workspace-write' });
  // What admit connect wrote is kept where the extension has no value; a key the gate
  // does not read is dropped (the gate refuses a file that has one).
  fs.writeFileSync(file, JSON.stringify({ mode: 'warn', effects: 'read-only', other: 1 }));
  assert.equal(await syncPersonSettings(file, { effects: 'workspace-write' }), 'written');
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { mode: 'warn', effects: 'workspace-write' });
  // A file that is not JSON is replaced by the person's choice.
  fs.writeFileSync(file, '{not json');
  assert.equal(await syncPersonSettings(file, { mode: 'enforce', effects: 'read-only' }), 'written');
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { mode: 'enforce', effects: 'read-only' });
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['settings.json'], 'no temporary file is left');
});
