// npm run package: builds the Go server from this repository for a VS Code target into
// bin/ (bin/admit, or bin/admit.exe on Windows), bundles the extension, and packs a .vsix
// for that target holding that binary alone.
//
//   npm run package                          the host's target: admit-<version>.vsix
//   npm run package -- --all                 every target: admit-<target>-<version>.vsix each
//   npm run package -- --target darwin-arm64 [--target ...]   the targets named, named so
//   --out DIR                                where the .vsix files go (default: extension/)
//
// ADMIT_SKIP_GO_BUILD=1 keeps a bin/ binary that is already there (one target only).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The VS Code targets admit ships for, and the Go target each is built as. */
export const TARGETS = {
  'linux-x64': { goos: 'linux', goarch: 'amd64', bin: 'admit' },
  'linux-arm64': { goos: 'linux', goarch: 'arm64', bin: 'admit' },
  'darwin-x64': { goos: 'darwin', goarch: 'amd64', bin: 'admit' },
  'darwin-arm64': { goos: 'darwin', goarch: 'arm64', bin: 'admit' },
  'win32-x64': { goos: 'windows', goarch: 'amd64', bin: 'admit.exe' },
};

/** hostTarget is the VS Code target of this machine (process.platform-process.arch). */
export function hostTarget(platform = process.platform, arch = process.arch) {
  const t = `${platform}-${arch}`;
  if (!(t in TARGETS)) throw new Error(`this machine (${t}) is not one of admit's targets: ${Object.keys(TARGETS).join(', ')}`);
  return t;
}

/** parseArgs reads the command line: which targets, where to, and whether the names carry the target. */
export function parseArgs(argv) {
  const targets = [];
  let out = '';
  let all = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--all') all = true;
    else if (a === '--target' || a === '--out') {
      const v = argv[++i];
      if (!v) throw new Error(`${a} needs a value`);
      if (a === '--out') out = v;
      else if (!(v in TARGETS)) throw new Error(`--target ${v}: not one of ${Object.keys(TARGETS).join(', ')}`);
      else targets.push(v);
    } else throw new Error(`unknown argument ${a} (--all, --target TARGET, --out DIR)`);
  }
  if (all && targets.length) throw new Error('--all and --target together');
  if (all) return { targets: Object.keys(TARGETS), named: true, out };
  if (targets.length) return { targets: [...new Set(targets)], named: true, out };
  return { targets: [hostTarget()], named: false, out };
}

const ext = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const repo = path.dirname(ext);
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', ...opts });

function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`package: ${e.message}`);
    process.exit(64);
  }
  const outDir = path.resolve(opts.out || ext);
  mkdirSync(outDir, { recursive: true });
  const binDir = path.join(ext, 'bin');
  mkdirSync(binDir, { recursive: true });
  const version = JSON.parse(execFileSync(process.execPath, ['-p', 'JSON.stringify(require("./package.json").version)'], { cwd: ext, encoding: 'utf8' }));
  const keep = process.env.ADMIT_SKIP_GO_BUILD && opts.targets.length === 1;
  for (const target of opts.targets) {
    const { goos, goarch, bin: name } = TARGETS[target];
    const bin = path.join(binDir, name);
    if (keep && existsSync(bin)) {
      console.log(`package: ADMIT_SKIP_GO_BUILD set, keeping bin/${name}`);
    } else {
      // One binary in bin/ at a time: a package never carries another target's.
      for (const other of new Set(Object.values(TARGETS).map((t) => t.bin))) rmSync(path.join(binDir, other), { force: true });
      console.log(`package: go build -trimpath -ldflags="-s -w" -o extension/bin/${name} . (${goos}/${goarch})`);
      try {
        // Stripped: a smaller binary starts faster, and every hook call starts one.
        run('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', bin, '.'], {
          cwd: repo,
          env: { ...process.env, CGO_ENABLED: '0', GOOS: goos, GOARCH: goarch },
        });
      } catch {
        console.error(`package: the Go build for ${target} failed (see above); no .vsix made`);
        process.exit(1);
      }
    }
    chmodSync(bin, 0o755);
    // vsce runs the vscode:prepublish script (the production bundle) itself.
    const out = path.join(outDir, opts.named ? `admit-${target}-${version}.vsix` : `admit-${version}.vsix`);
    run(path.join(ext, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--target', target, '-o', out], { cwd: ext });
    console.log(`package: ${out} (${target}, ${Math.round(statSync(out).size / 1024)} KiB)`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
