// Bundles the extension with esbuild (vscode external), or with --tests the unit tests,
// each into its own file under out/test/, with `vscode` replaced by test/vscode-mock.ts.
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = new Set(process.argv.slice(2));
const production = args.has('--production');

if (args.has('--tests')) {
  const tests = readdirSync(path.join(root, 'test')).filter((f) => f.endsWith('.test.ts'));
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: tests.map((f) => `test/${f}`),
    outdir: 'out/test',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    alias: { vscode: './test/vscode-mock.ts' },
    logLevel: 'warning',
  });
} else {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    minify: production,
    sourcemap: !production,
    sourcesContent: false,
    logLevel: 'warning',
  });
}
