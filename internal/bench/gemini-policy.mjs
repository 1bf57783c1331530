// gemini-policy.mjs times Gemini CLI's own policy engine on command lines,
// for admit bench: node gemini-policy.mjs PACKAGE_DIR < input.json, where
// PACKAGE_DIR is an installed @google/gemini-cli (…/node_modules/@google/
// gemini-cli) and input.json is {"lines": [...], "warmupMs": N, "ms": N}.
//
// It builds the engine the way the CLI does in an interactive session:
// createPolicyEngineConfig over the policies it ships (bundle/policies/
// *.toml, plus the user's and system's folders, empty under the HOME the
// caller gives), approval mode "default", a NoopSandboxManager on the
// working folder (no sandbox) and a trusted folder. It leaves out the
// CheckerRunner (its safety checkers need the CLI's whole Config), which
// only makes Gemini's figure smaller. Each line is a run_shell_command
// call, awaited one after the other as the CLI's scheduler does.
//
// It prints one JSON object: {"engine", "version", "node", "lines",
// "checks", "nsPerLine", "decisions": {"allow", "ask_user", "deny"},
// "perLine": [the first pass's decision of each line]}.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { format } from "node:util";

const pkgDir = process.argv[2];
if (!pkgDir) {
  console.error("usage: node gemini-policy.mjs PACKAGE_DIR < input.json");
  process.exit(2);
}
const input = JSON.parse(readFileSync(0, "utf8"));
if (!Array.isArray(input.lines) || input.lines.length === 0 || !input.lines.every((l) => typeof l === "string")) {
  throw new Error(`input.lines: want a non-empty array of strings, got ${JSON.stringify(input.lines)}`);
}
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));

// The bundle is cut into chunks with hashed names: the engine is in the
// one of gemini.js's imports that defines the class.
const bundle = join(pkgDir, "bundle");
const imports = [...readFileSync(join(bundle, "gemini.js"), "utf8").matchAll(/^import "\.\/(chunk-[A-Z0-9]+\.js)";$/gm)].map((m) => m[1]);
const chunk = imports.find((f) => readFileSync(join(bundle, f), "utf8").includes("\nvar PolicyEngine = class {"));
if (!chunk) throw new Error(`no chunk imported by ${join(bundle, "gemini.js")} defines PolicyEngine`);

// The CLI's ConsolePatcher drops the engine's console.debug lines unless
// it runs with --debug, and formats the others for its UI's console panel:
// here they are dropped and formatted alike, and stdout holds the result.
console.debug = () => {};
console.log = console.info = console.warn = console.error = (...args) => void format(...args);
const core = await import(pathToFileURL(join(bundle, chunk)).href);
const config = await core.createPolicyEngineConfig({}, core.ApprovalMode.DEFAULT, undefined, true);
const engine = new core.PolicyEngine({
  ...config,
  sandboxManager: new core.NoopSandboxManager({ workspace: process.cwd() }),
  isTrustedFolder: () => true,
});
const check = (line) => engine.check({ name: core.SHELL_TOOL_NAME, args: { command: line } }, undefined);

const perLine = [];
for (const line of input.lines) perLine.push((await check(line)).decision);
const pass = async () => {
  for (const line of input.lines) await check(line);
};
for (const stop = Date.now() + (input.warmupMs ?? 0); Date.now() < stop; ) await pass();
let passes = 0;
const t0 = process.hrtime.bigint();
const stop = Date.now() + (input.ms ?? 1000);
do {
  await pass();
  passes++;
} while (Date.now() < stop);
const elapsed = Number(process.hrtime.bigint() - t0);

const decisions = { allow: 0, ask_user: 0, deny: 0 };
for (const d of perLine) decisions[d] = (decisions[d] ?? 0) + 1;
const checks = passes * input.lines.length;
process.stdout.write(JSON.stringify({
  engine: pkg.name, version: pkg.version, node: process.version,
  lines: input.lines.length, checks, nsPerLine: elapsed / checks, decisions, perLine,
}) + "\n");
