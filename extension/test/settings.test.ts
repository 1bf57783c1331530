import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import {
  expandPath, readSettings, resolveServer, serverOptions,
  type FileProbe, type Layers, type LayerSource, type PathContext, type ServerContext,
} from '../src/settings';

/** source builds layers: person values, and repository values by where they are. */
function source(person: Record<string, unknown>, repo: Record<string, Record<string, unknown>> = {}, defaults: Record<string, unknown> = {}): LayerSource {
  return (key): Layers => ({
    person: person[key],
    default: defaults[key],
    repo: Object.entries(repo).filter(([, v]) => key in v).map(([where, v]) => ({ where, value: v[key] })),
  });
}

test('defaults: warn, read-only, analyze, and the server\'s 60000 ms', () => {
  const { settings, notes } = readSettings(source({}));
  assert.deepEqual(settings, { mode: 'warn', effects: 'read-only', shell: 'analyze', serverPath: '', modal: false, approvalTimeoutMs: 60000, tape: '', restricted: false, secretPatterns: [], confinedRuns: 'ask', acceptWeakerConfinement: false });
  assert.deepEqual(notes, []);
});

test('the person\'s user or machine settings apply', () => {
  const { settings } = readSettings(source({ mode: 'enforce', effects: 'workspace-write', shell: 'refuse', 'server.path': '/opt/admit', tape: '/t.jsonl', approvalTimeoutMs: 5000, 'approvals.modal': true, 'secrets.patterns': ['*.pem'], confinedRuns: 'allow', 'confinement.acceptWeaker': true }));
  assert.deepEqual(settings, { mode: 'enforce', effects: 'workspace-write', shell: 'refuse', serverPath: '/opt/admit', modal: true, approvalTimeoutMs: 5000, tape: '/t.jsonl', restricted: false, secretPatterns: ['*.pem'], confinedRuns: 'allow', acceptWeakerConfinement: true });
});

test('a hostile workspace cannot loosen the gate or choose what runs; each ignored value is noted', () => {
  const hostileWs = {
    mode: 'off', effects: 'workspace-write', shell: 'analyze',
    'server.path': '${workspaceFolder}/evil-admit', tape: '/dev/null', approvalTimeoutMs: 1000,
    confinedRuns: 'allow', 'confinement.acceptWeaker': true, 'secrets.patterns': ['!.env', 'vault/**'],
  };
  const { settings, notes } = readSettings(source({ mode: 'enforce', shell: 'refuse' }, { "the workspace's .vscode/settings.json": hostileWs }));
  assert.equal(settings.mode, 'enforce');
  assert.equal(settings.effects, 'read-only');
  assert.equal(settings.shell, 'refuse');
  assert.equal(settings.serverPath, '');
  assert.equal(settings.tape, '');
  assert.equal(settings.approvalTimeoutMs, 60000);
  assert.equal(settings.confinedRuns, 'ask');
  assert.equal(settings.acceptWeakerConfinement, false);
  // The repository may ask about more files, never exempt one.
  assert.deepEqual(settings.secretPatterns, ['vault/**']);
  assert.match(notes.join('\n'), /admit\.secrets\.patterns: the workspace's \.vscode\/settings\.json exempts "!\.env"; ignored/);
  for (const k of ['mode', 'effects', 'shell', 'server.path', 'tape', 'approvalTimeoutMs', 'confinedRuns', 'confinement.acceptWeaker']) {
    assert.ok(notes.some((n) => n.startsWith(`admit.${k}: the workspace's .vscode/settings.json sets`) && /ignored/.test(n)), `${k}: ${notes.join('\n')}`);
  }
  // A value the person did not set still cannot be loosened from the default.
  assert.equal(readSettings(source({}, { ws: { mode: 'off' } })).settings.mode, 'warn');
});

test('a workspace or folder may tighten: enforce over warn over off, read-only over write, refuse over analyze', () => {
  const cases: { person: Record<string, unknown>; repo: Record<string, Record<string, unknown>>; want: [string, string, string] }[] = [
    { person: { mode: 'off' }, repo: { ws: { mode: 'warn' } }, want: ['warn', 'read-only', 'analyze'] },
    { person: { mode: 'warn' }, repo: { ws: { mode: 'enforce' } }, want: ['enforce', 'read-only', 'analyze'] },
    { person: { mode: 'off' }, repo: { ws: { mode: 'warn' }, 'folder b': { mode: 'enforce' } }, want: ['enforce', 'read-only', 'analyze'] },
    { person: { mode: 'warn' }, repo: { ws: { mode: 'enforce' }, 'folder b': { mode: 'off' } }, want: ['enforce', 'read-only', 'analyze'] },
    { person: { effects: 'workspace-write' }, repo: { ws: { effects: 'read-only' } }, want: ['warn', 'read-only', 'analyze'] },
    { person: { shell: 'analyze' }, repo: { 'folder a': { shell: 'refuse' } }, want: ['warn', 'read-only', 'refuse'] },
    { person: { shell: 'analyze' }, repo: { ws: { shell: 'zsh' } }, want: ['warn', 'read-only', 'zsh'] },
    { person: { shell: 'fish' }, repo: { ws: { shell: 'refuse' } }, want: ['warn', 'read-only', 'refuse'] },
    { person: { shell: 'zsh' }, repo: { ws: { shell: 'portable' } }, want: ['warn', 'read-only', 'portable'] },
    { person: { shell: 'analyze' }, repo: { ws: { shell: 'portable' } }, want: ['warn', 'read-only', 'portable'] },
    { person: { shell: 'portable' }, repo: { ws: { shell: 'refuse' } }, want: ['warn', 'read-only', 'refuse'] },
  ];
  for (const c of cases) {
    const { settings, notes } = readSettings(source(c.person, c.repo));
    assert.deepEqual([settings.mode, settings.effects, settings.shell], c.want, JSON.stringify(c));
    assert.ok(notes.some((n) => /tightens/.test(n)), JSON.stringify(notes));
  }
});

test('one interactive shell is not stricter than another: a repository cannot move the person\'s to a different one, or back to analyze', () => {
  for (const repo of ['bash-interactive', 'fish', 'analyze']) {
    const { settings, notes } = readSettings(source({ shell: 'zsh' }, { ws: { shell: repo } }));
    assert.equal(settings.shell, 'zsh', repo);
    assert.match(notes.join('\n'), new RegExp(`ws sets ${repo}, which is not stricter than zsh; ignored`), repo);
  }
});

test('portable is the person\'s own choice, and nothing but refuse tightens it', () => {
  const own = readSettings(source({ shell: 'portable' }));
  assert.equal(own.settings.shell, 'portable');
  for (const repo of ['bash-interactive', 'zsh', 'fish', 'analyze']) {
    const { settings, notes } = readSettings(source({ shell: 'portable' }, { ws: { shell: repo } }));
    assert.equal(settings.shell, 'portable', repo);
    assert.match(notes.join('\n'), new RegExp(`ws sets ${repo}, which is not stricter than portable; ignored`), repo);
  }
});

test('values that are not allowed fail closed, with a note naming the setting and the value', () => {
  const { settings, notes } = readSettings(source({ mode: 'loose', effects: 7, shell: null, approvalTimeoutMs: 12.5, tape: {} }));
  assert.equal(settings.mode, 'enforce');
  assert.equal(settings.effects, 'read-only');
  assert.equal(settings.shell, 'refuse');
  assert.equal(settings.approvalTimeoutMs, 60000);
  assert.equal(settings.tape, '');
  assert.match(notes.join('\n'), /admit\.mode: "loose" is not one of enforce, warn, off; using enforce/);
  assert.match(notes.join('\n'), /admit\.approvalTimeoutMs: 12\.5 is not a whole number/);
  assert.match(notes.join('\n'), /admit\.tape: \{\} is not a string/);
  const odd = readSettings(source({ confinedRuns: 'always', 'confinement.acceptWeaker': 'yes', 'secrets.patterns': '*.pem' }));
  assert.deepEqual([odd.settings.confinedRuns, odd.settings.acceptWeakerConfinement, odd.settings.secretPatterns], ['ask', false, []]);
  assert.match(odd.notes.join('\n'), /admit\.confinedRuns: "always" is not one of ask, allow; using ask/);
  assert.match(odd.notes.join('\n'), /admit\.confinement\.acceptWeaker: "yes" is not true or false/);
  assert.match(odd.notes.join('\n'), /admit\.secrets\.patterns: your settings sets "\*\.pem", which is not a list of patterns/);
  const repoBad = readSettings(source({ mode: 'warn' }, { ws: { mode: 'OFF' } }));
  assert.equal(repoBad.settings.mode, 'warn');
  assert.match(repoBad.notes.join('\n'), /ws sets "OFF", which is not one of/);
});

test('Restricted Mode: enforce and read-only whatever the settings say; trust gives the person\'s back', () => {
  const src = source({ mode: 'off', effects: 'workspace-write', shell: 'analyze', confinedRuns: 'allow' });
  const r = readSettings(src, false);
  assert.deepEqual([r.settings.mode, r.settings.effects, r.settings.restricted, r.settings.confinedRuns], ['enforce', 'read-only', true, 'ask']);
  assert.match(r.notes.join('\n'), /Restricted Mode: .* enforce and read-only \(the settings say off, workspace-write\)/);
  const t = readSettings(src, true);
  assert.deepEqual([t.settings.mode, t.settings.effects, t.settings.restricted], ['off', 'workspace-write', false]);
});

const ctx: PathContext = { home: '/home/u', folders: [{ name: 'app', path: '/w/app' }, { name: 'lib', path: '/w/lib' }] };

test('path settings: ~, ${userHome}, ${workspaceFolder} and ${workspaceFolder:NAME} expand; the rest is an error naming it', () => {
  assert.deepEqual(expandPath('tape', '~/t.jsonl', ctx), { path: '/home/u/t.jsonl' });
  assert.deepEqual(expandPath('tape', '~', ctx), { path: '/home/u' });
  assert.deepEqual(expandPath('tape', '${userHome}/x/../t', ctx), { path: '/home/u/t' });
  assert.deepEqual(expandPath('tape', '${workspaceFolder}/.admit/tape.jsonl', ctx), { path: '/w/app/.admit/tape.jsonl' });
  assert.deepEqual(expandPath('tape', '${workspaceFolder:lib}/t', ctx), { path: '/w/lib/t' });
  const err = (v: string, c = ctx) => {
    const e = expandPath('tape', v, c);
    assert.ok('error' in e, v);
    return e.error;
  };
  assert.match(err('${workspaceFolder:nope}/t'), /admit\.tape "\$\{workspaceFolder:nope\}\/t" names \$\{workspaceFolder:nope\}, but no workspace folder has that name/);
  assert.match(err('${env:HOME}/t'), /uses \$\{env:HOME\}, which admit does not expand/);
  assert.match(err('${workspaceFolder}/t', { home: '/h', folders: [] }), /no workspace folder is open/);
  assert.match(err('tape.jsonl'), /admit\.tape "tape\.jsonl" is a relative path/);
  assert.match(err('~/t', { home: '', folders: [] }), /relative path/);
});

test('the tape reaches the server expanded; a bad one starts nothing', () => {
  const s = readSettings(source({ mode: 'enforce', tape: '~/t.jsonl', approvalTimeoutMs: 5000 })).settings;
  assert.deepEqual(serverOptions(s, ctx), { options: { mode: 'enforce', effects: 'read-only', shell: 'analyze', approvalTimeoutMs: 5000, tape: '/home/u/t.jsonl', secretPatterns: [], confinedRuns: 'ask', acceptWeakerConfinement: false } });
  assert.deepEqual(serverOptions(readSettings(source({})).settings, ctx), { options: { mode: 'warn', effects: 'read-only', shell: 'analyze', approvalTimeoutMs: 60000, secretPatterns: [], confinedRuns: 'ask', acceptWeakerConfinement: false } });
  const bad = serverOptions({ ...s, tape: 'relative.jsonl' }, ctx);
  assert.ok('error' in bad && /relative path.*Nothing was started/.test(bad.error));
});

/** A file system of executables, plain files, folders and symbolic links. */
function fakeFs(files: Record<string, 'exe' | 'file' | 'dir' | { link: string }>): FileProbe {
  const resolve = (p: string): string => {
    let cur = '/';
    for (const part of p.split('/').filter(Boolean)) {
      cur = path.join(cur, part);
      const f = files[cur];
      if (typeof f === 'object') cur = resolve(f.link);
    }
    return cur;
  };
  const exists = (r: string) => r === '/' || files[r] !== undefined || Object.keys(files).some((k) => k.startsWith(`${r}/`));
  const kind = (p: string) => files[resolve(p)];
  return {
    realpath: (p) => (exists(resolve(p)) ? resolve(p) : undefined),
    isFile: (p) => kind(p) === 'exe' || kind(p) === 'file',
    isExecutable: (p) => kind(p) === 'exe',
  };
}

const sctx = (files: Parameters<typeof fakeFs>[0], pathEnv = '/usr/bin'): ServerContext => ({
  ...ctx, extensionPath: '/ext', pathEnv, probe: fakeFs(files), platform: 'linux',
});

test('server binary: the setting, else the bundled one, else admit on PATH', () => {
  const files = { '/opt/admit': 'exe', '/ext/bin/admit': 'exe', '/usr/bin/admit': 'exe' } as const;
  assert.deepEqual(resolveServer('/opt/admit', sctx(files)), { command: '/opt/admit', source: 'setting', notes: [] });
  assert.deepEqual(resolveServer('', sctx(files)), { command: '/ext/bin/admit', source: 'bundled', notes: [] });
  assert.deepEqual(resolveServer('', sctx({ '/usr/bin/admit': 'exe' })), { command: '/usr/bin/admit', source: 'PATH', notes: [] });
  assert.deepEqual(resolveServer('~/bin/admit', sctx({ '/home/u/bin/admit': 'exe' })), { command: '/home/u/bin/admit', source: 'setting', notes: [] });
});

test('a bad server path is an error that names it, and nothing starts', () => {
  const err = (setting: string, files: Parameters<typeof fakeFs>[0], pathEnv?: string) => {
    const r = resolveServer(setting, sctx(files, pathEnv));
    assert.ok('error' in r, `${setting} was accepted: ${JSON.stringify(r)}`);
    assert.match(r.error, /Nothing was started\.$/);
    return r.error;
  };
  assert.match(err('admit', {}), /admit\.server\.path "admit" is a relative path/);
  assert.match(err('./bin/admit', {}), /"\.\/bin\/admit" is a relative path/);
  assert.match(err('/opt/missing', {}), /admit\.server\.path "\/opt\/missing" does not exist/);
  assert.match(err('/opt/admit', { '/opt/admit': 'file' }), /"\/opt\/admit" is not executable/);
  assert.match(err('/opt', { '/opt': 'dir' }), /"\/opt" is not a regular file/);
  // Inside a workspace folder: as written, through ${workspaceFolder}, or through a link.
  assert.match(err('/w/app/tools/admit', { '/w/app/tools/admit': 'exe' }), /"\/w\/app\/tools\/admit" is inside the workspace folder \/w\/app: a program the repository ships cannot be the gate/);
  assert.match(err('${workspaceFolder}/admit', { '/w/app/admit': 'exe' }), /\(\/w\/app\/admit\) is inside the workspace folder \/w\/app/);
  assert.match(err('/usr/local/bin/admit', { '/usr/local/bin/admit': { link: '/w/lib/x/admit' }, '/w/lib/x/admit': 'exe' }), /inside the workspace folder \/w\/lib \(it resolves to \/w\/lib\/x\/admit\)/);
  // A workspace folder reached through a link of its own.
  assert.match(err('/real/ws/admit', { '/real/ws/admit': 'exe', '/w/app': { link: '/real/ws' } }), /inside the workspace folder \/w\/app/);
  assert.match(err('', {}, '/usr/bin'), /No admit binary/);
});

test('on PATH, relative entries and entries inside a workspace folder are passed over', () => {
  const r = resolveServer('', sctx({ '/w/app/node_modules/.bin/admit': 'exe', '/usr/local/bin/admit': 'exe' }, 'bin::/w/app/node_modules/.bin:/usr/local/bin'));
  assert.equal('command' in r && r.command, '/usr/local/bin/admit');
  assert.match(r.notes.join('\n'), /PATH entry "bin" is relative/);
  assert.match(r.notes.join('\n'), /\/w\/app\/node_modules\/\.bin\/admit on PATH is inside the workspace folder \/w\/app; passed over/);
  const none = resolveServer('', sctx({ '/w/app/bin/admit': 'exe' }, '/w/app/bin'));
  assert.ok('error' in none);
});
