import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gatedMethods, plainMethods } from '../src/api';
import { defaults, guardedKeys } from '../src/settings';

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
  assert.deepEqual(props['admit.shell'].enum, ['analyze', 'refuse']);
  for (const k of ['admit.server.path', 'admit.approvals.modal', 'admit.approvalTimeoutMs', 'admit.tape']) assert.ok(props[k], k);
  // One default for the approval timeout: the server's.
  assert.equal(props['admit.approvalTimeoutMs'].default, defaults.approvalTimeoutMs);
  assert.equal(defaults.approvalTimeoutMs, 60000);
  for (const k of ['mode', 'effects', 'shell'] as const) assert.equal(props[`admit.${k}`].default, defaults[k], k);
  const commands = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
  for (const c of ['selectMode', 'restartServer', 'showTape', 'campaignReport', 'showDecision', ...gatedMethods, ...plainMethods]) {
    assert.ok(commands.has(`admit.${c}`), c);
  }
  for (const c of ['reviewPolicy', 'distrustPolicy', 'showApproval', 'answerApproval', 'dismissApproval', 'addRule', 'removeRule', 'openRulesFile', 'refreshRules', 'addSuggestedRule']) {
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
  for (const k of ['admit.server.path', 'admit.tape', 'admit.approvalTimeoutMs']) assert.match(props[k].markdownDescription, /a workspace value is ignored/, k);
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
