// npm run package: builds the Go server for linux-x64 from this repository into bin/,
// bundles the extension, and packs a .vsix that contains bin/admit.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const ext = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const repo = path.dirname(ext);
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', ...opts });

mkdirSync(path.join(ext, 'bin'), { recursive: true });
const bin = path.join(ext, 'bin', 'admit');
if (process.env.ADMIT_SKIP_GO_BUILD && existsSync(bin)) {
  console.log('package: ADMIT_SKIP_GO_BUILD set, keeping bin/admit');
} else {
  console.log('package: go build -trimpath -ldflags="-s -w" -o extension/bin/admit . (linux/amd64)');
  try {
    // Stripped: a smaller binary starts faster, and every hook call starts one.
    run('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', bin, '.'], {
      cwd: repo,
      env: { ...process.env, CGO_ENABLED: '0', GOOS: 'linux', GOARCH: 'amd64' },
    });
  } catch {
    console.error('package: the Go build failed (see above); no .vsix made');
    process.exit(1);
  }
}
chmodSync(bin, 0o755);
// vsce runs the vscode:prepublish script (the production bundle) itself.
const version = JSON.parse(execFileSync(process.execPath, ['-p', 'JSON.stringify(require("./package.json").version)'], { cwd: ext, encoding: 'utf8' }));
const out = path.join(ext, `admit-${version}.vsix`);
run(path.join(ext, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--target', 'linux-x64', '-o', out], { cwd: ext });
console.log(`package: ${out} (${Math.round(statSync(out).size / 1024)} KiB)`);
