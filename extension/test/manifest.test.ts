import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gatedMethods, plainMethods } from '../src/api';
import { hasMcpProviderApi, mcpDefinitions, mcpProviderId } from '../src/mcpProvider';
import { toolNames } from '../src/toolCalls';
import { defaults, guardedKeys, strictness } from '../src/settings';

// The bundled test runs from out/test/; the package root is two levels up.
const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

test('the manifest contributes the settings, commands, view and schema', () => {
  assert.equal(pkg.name, 'admit');
  assert.equal(pkg.publisher, 'admit');
  assert.match(pkg.engines.vscode, /^\^1\.(9\d|100)\./);
  assert.ok(pkg.activationEvents.includes('onStartupFinished'));
  const props = pkg.contributes.configuration.properties;
  assert.deepEqual(props['admit.mode'].enum, ['off', 'warn', 'enforce']);
  assert.equal(props['admit.mode'].default, 'warn');
  assert.deepEqual(props['admit.effects'].enum, ['read-only', 'workspace-write']);
  assert.deepEqual([...props['admit.shell'].enum].sort(), strictness.shell.flat().sort());
  assert.deepEqual(props['admit.confinedRuns'].enum, ['ask', 'allow']);
  assert.equal(props['admit.confinedRuns'].default, defaults.confinedRuns);
  for (const k of ['admit.server.path', 'admit.approvals.modal', 'admit.approvalTimeoutMs', 'admit.tape', 'admit.secrets.patterns', 'admit.confinement.acceptWeaker']) assert.ok(props[k], k);
  // One default for the approval timeout: the server's.
  assert.equal(props['admit.approvalTimeoutMs'].default, defaults.approvalTimeoutMs);
  assert.equal(defaults.approvalTimeoutMs, 60000);
  for (const k of ['mode', 'effects', 'shell'] as const) assert.equal(props[`admit.${k}`].default, defaults[k], k);
  const commands = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
  for (const c of ['selectMode', 'restartServer', 'showTape', 'campaignReport', 'showDecision', ...gatedMethods, ...plainMethods]) {
    assert.ok(commands.has(`admit.${c}`), c);
  }
  for (const c of ['connectAgents', 'disconnectAgent', 'reviewPolicy', 'distrustPolicy', 'showApproval', 'answerApproval', 'dismissApproval', 'addRule', 'removeRule', 'openRulesFile', 'refreshRules', 'addSuggestedRule']) {
    assert.ok(commands.has(`admit.${c}`), c);
  }
  assert.deepEqual(pkg.contributes.views.admit.map((v: { id: string }) => v.id), ['admit.decisions', 'admit.rules']);
  // The commands only the extension's own links and keys run are not in the palette.
  const hidden = new Set(pkg.contributes.menus.commandPalette.filter((m: { when: string }) => m.when === 'false').map((m: { command: string }) => m.command));
  for (const c of ['answerApproval', 'dismissApproval', 'removeRule', 'addSuggestedRule']) assert.ok(hidden.has(`admit.${c}`), c);
  // Escape in the prompt panel dismisses it (deny), and only there.
  assert.deepEqual(pkg.contributes.keybindings, [{ command: 'admit.dismissApproval', key: 'escape', when: "activeWebviewPanelId == 'admit.approval'" }]);
  assert.equal(pkg.contributes.jsonValidation[0].fileMatch, '.admit/policy.json');
});

test('settings that choose what runs are machine-scoped; the guarded ones say a workspace only tightens; Restricted Mode is declared', () => {
  const props = pkg.contributes.configuration.properties;
  assert.equal(props['admit.server.path'].scope, 'machine');
  assert.equal(props['admit.tape'].scope, 'machine');
  for (const k of ['admit.mode', 'admit.effects', 'admit.shell']) {
    assert.equal(props[k].scope, 'resource', k);
    assert.match(props[k].markdownDescription, /workspace or folder setting may only tighten/, k);
  }
  assert.equal(props['admit.approvalTimeoutMs'].scope, 'window');
  for (const k of ['admit.server.path', 'admit.tape', 'admit.approvalTimeoutMs', 'admit.confinedRuns', 'admit.confinement.acceptWeaker']) assert.match(props[k].markdownDescription, /a workspace value is ignored/, k);
  const ut = pkg.capabilities.untrustedWorkspaces;
  assert.equal(ut.supported, 'limited');
  assert.deepEqual([...ut.restrictedConfigurations].sort(), guardedKeys.map((k) => `admit.${k}`).sort());
});

test('the policy schema parses and names the policy file fields', () => {
  const schema = JSON.parse(readFileSync(path.join(root, 'schemas', 'policy.schema.json'), 'utf8'));
  for (const f of ['allow', 'needsHuman', 'mutators', 'shellTools', 'headless', 'bounds', 'programs']) assert.ok(schema.properties[f], f);
  assert.equal(schema.properties.programs.additionalProperties, true);
});

test('api.d.ts declares every method the API implements', () => {
  const dts = readFileSync(path.join(root, 'api.d.ts'), 'utf8');
  for (const m of [...gatedMethods, ...plainMethods]) assert.match(dts, new RegExp(`\\n  ${m}\\(params: `), m);
  assert.match(dts, /readonly onDidDecide: AdmitEvent<Decision>/);
});

test("admit's tools are contributed as language-model tools, and its MCP server through a definition provider", () => {
  const lmt = pkg.contributes.languageModelTools as Record<string, unknown>[];
  assert.deepEqual(lmt.map((t) => t.name), [...toolNames]);
  for (const t of lmt) {
    // What VS Code requires of a tool (languageModelToolsContribution.ts): a name of word characters, not copilot_ or vscode_.
    assert.match(String(t.name), /^[\w-]+$/);
    assert.doesNotMatch(String(t.name), /^(copilot|vscode)_/);
    for (const k of ['displayName', 'modelDescription', 'userDescription', 'toolReferenceName']) assert.equal(typeof t[k], 'string', `${t.name}.${k}`);
    assert.equal(t.canBeReferencedInPrompt, true);
    assert.match(String(t.toolReferenceName), /^\S+$/);
    const schema = t.inputSchema as { type: string; properties: object; required: string[]; additionalProperties: boolean };
    assert.equal(schema.type, 'object');
    assert.equal(schema.additionalProperties, false);
    for (const r of schema.required) assert.ok(r in schema.properties, `${t.name}: ${r}`);
    assert.match(String(t.modelDescription), /refused again/);
  }
  assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders.map((p: { id: string }) => p.id), [mcpProviderId]);
  // The engine still accepts code-server's VS Code (1.100); the newer APIs are declared locally and guarded.
  assert.match(pkg.engines.vscode, /^\^1\.(9\d|100)\./);
  assert.ok(!/\^1\.(1\d\d)/.test(pkg.devDependencies['@types/vscode']), '@types/vscode stays at or below the engine');
});

test('the MCP definitions: the installed binary, mcp serve with --cwd each folder, the socket; only VS Code 1.101+ is asked', () => {
  assert.deepEqual(mcpDefinitions([{ name: 'app', path: '/w/app' }], '/home/me/.local/share/admit/bin/admit', '/run/admit/s.sock'), [
    { label: 'admit', command: '/home/me/.local/share/admit/bin/admit', args: ['mcp', 'serve', '--cwd', '/w/app'], env: { ADMIT_SOCKET: '/run/admit/s.sock' } },
  ]);
  const two = mcpDefinitions([{ name: 'a', path: '/w/a' }, { name: 'b', path: '/w/b' }], '/b/admit', undefined);
  assert.deepEqual(two.map((d) => [d.label, d.args[3], d.env]), [['admit: a', '/w/a', {}], ['admit: b', '/w/b', {}]]);
  const lm = { registerMcpServerDefinitionProvider() {} };
  const ctor = class {};
  assert.equal(hasMcpProviderApi('1.100.3', lm, ctor), false, "1.100's is a proposed API");
  assert.equal(hasMcpProviderApi('1.101.0', lm, ctor), true);
  assert.equal(hasMcpProviderApi('1.110.2-insider', lm, ctor), true);
  assert.equal(hasMcpProviderApi('2.0.0', lm, ctor), true);
  assert.equal(hasMcpProviderApi('1.101.0', {}, ctor), false);
  assert.equal(hasMcpProviderApi('1.101.0', lm, undefined), false);
});
