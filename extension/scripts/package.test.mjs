// npm run test:package: packs the extension for every target once (package.mjs --all,
// into a temporary folder) and opens each .vsix: it must be marked for its target and hold
// exactly one server binary, bin/admit (bin/admit.exe for win32), built for that system
// and processor, as its file header says (ELF, Mach-O or PE, and the machine). Slow (five
// Go builds and five packs), so it is its own suite, not part of the unit tests or e2e.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { TARGETS, hostTarget, parseArgs } from './package.mjs';

const ext = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** zipEntries lists a zip's files: name, Unix mode (when the packer kept one) and contents. */
export function zipEntries(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip: no end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central directory entry at ${p}`);
    const madeBy = buf.readUInt16LE(p + 4) >> 8;
    const method = buf.readUInt16LE(p + 10);
    const size = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const external = buf.readUInt32LE(p + 38);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    if (buf.readUInt32LE(local) !== 0x04034b50) throw new Error(`bad local header for ${name}`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + size);
    const data = method === 0 ? raw : method === 8 ? inflateRawSync(raw) : null;
    if (!data) throw new Error(`${name}: compression method ${method}`);
    out.push({ name, mode: madeBy === 3 ? external >>> 16 : undefined, data });
  }
  return out;
}

/** binaryKind reads an executable's header: its format and machine, as "elf/x64". */
export function binaryKind(b) {
  if (b.length >= 20 && b[0] === 0x7f && b.toString('latin1', 1, 4) === 'ELF') {
    if (b[4] !== 2 || b[5] !== 1) return 'elf/not-64-bit-little-endian';
    const machine = b.readUInt16LE(18);
    return `elf/${{ 62: 'x64', 183: 'arm64' }[machine] ?? machine}`;
  }
  if (b.length >= 8 && b.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = b.readUInt32LE(4);
    return `macho/${{ 0x01000007: 'x64', 0x0100000c: 'arm64' }[cpu] ?? cpu.toString(16)}`;
  }
  if (b.length >= 0x40 && b.toString('latin1', 0, 2) === 'MZ') {
    const pe = b.readUInt32LE(0x3c);
    if (b.toString('latin1', pe, pe + 4) !== 'PE\0\0') return 'mz/not-pe';
    const machine = b.readUInt16LE(pe + 4);
    return `pe/${{ 0x8664: 'x64', 0xaa64: 'arm64' }[machine] ?? machine.toString(16)}`;
  }
  return 'unknown';
}

const want = {
  'linux-x64': 'elf/x64',
  'linux-arm64': 'elf/arm64',
  'darwin-x64': 'macho/x64',
  'darwin-arm64': 'macho/arm64',
  'win32-x64': 'pe/x64',
};

test('the command line picks the targets', () => {
  assert.deepEqual(parseArgs(['--all']).targets, Object.keys(TARGETS));
  assert.deepEqual(parseArgs(['--target', 'darwin-arm64', '--out', '/x']), { targets: ['darwin-arm64'], named: true, out: '/x' });
  assert.equal(parseArgs([]).named, false);
  assert.deepEqual(parseArgs([]).targets, [hostTarget()]);
  assert.throws(() => parseArgs(['--target', 'win32-arm64']), /not one of/);
  assert.throws(() => parseArgs(['--all', '--target', 'linux-x64']), /together/);
  assert.throws(() => parseArgs(['--target']), /needs a value/);
  assert.equal(hostTarget('darwin', 'arm64'), 'darwin-arm64');
  assert.equal(hostTarget('win32', 'x64'), 'win32-x64');
  assert.throws(() => hostTarget('freebsd', 'x64'), /not one of admit's targets/);
});

test('the header reader tells the five targets apart', () => {
  const elf = (m) => {
    const b = Buffer.alloc(64);
    b.write('\x7fELF', 0, 'latin1');
    b[4] = 2;
    b[5] = 1;
    b.writeUInt16LE(m, 18);
    return b;
  };
  const macho = (cpu) => {
    const b = Buffer.alloc(32);
    b.writeUInt32LE(0xfeedfacf, 0);
    b.writeUInt32LE(cpu, 4);
    return b;
  };
  const pe = (m) => {
    const b = Buffer.alloc(256);
    b.write('MZ', 0, 'latin1');
    b.writeUInt32LE(128, 0x3c);
    b.write('PE\0\0', 128, 'latin1');
    b.writeUInt16LE(m, 132);
    return b;
  };
  assert.equal(binaryKind(elf(62)), 'elf/x64');
  assert.equal(binaryKind(elf(183)), 'elf/arm64');
  assert.equal(binaryKind(macho(0x01000007)), 'macho/x64');
  assert.equal(binaryKind(macho(0x0100000c)), 'macho/arm64');
  assert.equal(binaryKind(pe(0x8664)), 'pe/x64');
  assert.equal(binaryKind(pe(0xaa64)), 'pe/arm64');
  assert.equal(binaryKind(Buffer.from('#!/bin/sh\n')), 'unknown');
});

test('each target\'s .vsix holds its own server binary', { timeout: 15 * 60 * 1000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'admit-package-'));
  try {
    execFileSync(process.execPath, [path.join(ext, 'scripts', 'package.mjs'), '--all', '--out', out], { cwd: ext, stdio: ['ignore', 'ignore', 'inherit'] });
    const version = JSON.parse(readFileSync(path.join(ext, 'package.json'), 'utf8')).version;
    for (const [target, { bin }] of Object.entries(TARGETS)) {
      const entries = zipEntries(readFileSync(path.join(out, `admit-${target}-${version}.vsix`)));
      const names = entries.map((e) => e.name);
      const bins = names.filter((n) => n.startsWith('extension/bin/'));
      assert.deepEqual(bins, [`extension/bin/${bin}`], `${target}: binaries ${bins}`);
      const server = entries.find((e) => e.name === `extension/bin/${bin}`);
      assert.equal(binaryKind(server.data), want[target], `${target}: bin/${bin} is ${binaryKind(server.data)}`);
      if (bin === 'admit' && server.mode !== undefined) assert.ok(server.mode & 0o111, `${target}: bin/admit is not executable in the package (mode ${server.mode.toString(8)})`);
      const manifest = entries.find((e) => e.name === 'extension.vsixmanifest');
      assert.ok(manifest, `${target}: no manifest in ${names}`);
      assert.match(manifest.data.toString('utf8'), new RegExp(`TargetPlatform="${target}"`), `${target}: the manifest names another target`);
      assert.ok(names.includes('extension/dist/extension.js'), `${target}: no bundle`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
