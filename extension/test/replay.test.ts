import assert from 'node:assert/strict';
import { test } from 'node:test';
import { direction, renderReplay, replayFailedPage, replayReportOf, replaySummary } from '../src/replay';
import { assertInertHtml, assertPlain, hostile, pageText } from './hostile';

const N = 'bm9uY2Vub25jZW5vbmNl';

const report = (command: string, cwd = '/w') => ({
  records: 12, calls: 10, replayed: 9, unchanged: 6, changed: 3, noFacts: 1, missingFacts: 1,
  changes: [
    { from: 'deny', to: 'allow', fromRule: 'not-in-allow-list', toRule: 'allowed', count: 2, examples: [{ id: 'a', tool: 'bash', command, cwd, reason: 'allowed by the workspace policy' }] },
    { from: 'allow', to: 'ask', fromRule: 'allowed', toRule: 'human-approval', count: 1, examples: [{ id: 'b', tool: 'bash', command: 'git push' }] },
  ],
  missing: [{ id: 'c', tool: 'bash', command: 'ls', missing: ['stat /w/x'] }],
});

test('the replay page: counts, what would loosen first, then what would tighten, with examples', () => {
  const html = renderReplay({ what: 'trusting the workspace policy file /w/.admit/policy.json' }, replayReportOf(report('npm test'))!, N);
  const text = pageText(html);
  assert.match(text, /Before trusting the workspace policy file \/w\/\.admit\/policy\.json: the 10 calls on the tape judged again/);
  assert.match(text, /9 judged again: 3 would change, 6 would not\. 1 call taped without facts could not be judged\. 1 call lacked a fact/);
  const looser = text.indexOf('Would now run');
  const tighter = text.indexOf('Would now be asked or refused');
  assert.ok(looser >= 0 && tighter > looser, text);
  assert.match(text, /was refused not-in-allow-list\s*would now run allowed\s*npm test in \/w/);
  assert.match(text, /ran allowed\s*would now be asked human-approval\s*git push/);
  assert.match(text, /Facts missing\s*ls.*stat \/w\/x/s);
  assert.doesNotMatch(html, /<a /, 'the page is read-only: the question is asked beside it');
});

test('the replay in a few plain lines, for the question beside the page', () => {
  assert.deepEqual(replaySummary(replayReportOf(report('npm test'))!), [
    'On the tape, 9 calls judged again: 3 would change, 6 would not, 1 taped without facts, 1 lacked a fact (judged as unknown).',
    '• 2 that was refused (not-in-allow-list) would now run (allowed) (npm test)',
    '• 1 that ran (allowed) would now be asked (human-approval) (git push)',
  ]);
  for (const h of hostile) for (const l of replaySummary(replayReportOf(report(h))!)) assertPlain(l, [], 'replay summary');
});

test('no change, a report of another shape, and a replay that failed', () => {
  const none = pageText(renderReplay({ what: 'adding the rule allow npm test' }, replayReportOf({ calls: 4, replayed: 4, unchanged: 4, changes: [] })!, N));
  assert.match(none, /Nothing on the tape would be decided differently/);
  assert.equal(replayReportOf(null), undefined);
  const odd = replayReportOf({ calls: 'x', changes: [null, 3, { from: 'allow', to: 'deny', count: -1, examples: 'no' }] })!;
  assert.deepEqual(odd.changes, [{ from: 'allow', to: 'deny', fromRule: '', toRule: '', count: 0, examples: [] }]);
  assert.equal(odd.calls, 0);
  assert.match(pageText(replayFailedPage({ what: 'adding the rule allow x' }, 'no tape', N)), /could not be judged again: no tape/);
  assert.equal(direction({ from: 'ask', to: 'allow' }), 'looser');
  assert.equal(direction({ from: 'ask', to: 'deny' }), 'tighter');
  assert.equal(direction({ from: 'deny', to: 'deny' }), 'same');
  assert.equal(direction({ from: 'weird', to: 'deny' }), 'same');
});

test('the tape\'s texts are drawn inert on the replay page', () => {
  for (const h of hostile) {
    const bad = renderReplay({ what: `trusting ${h}` }, replayReportOf(report(h, h))!, N);
    const ok = renderReplay({ what: 'trusting p' }, replayReportOf(report('c', 'd'))!, N);
    assertInertHtml(bad, ok, [h], 'replay page');
  }
});

test('the replay is shown before the person is asked to trust a workspace policy, and before a suggested rule is taken', async () => {
  const vscode = await import('./vscode-mock');
  const { showReplay, CampaignReport } = await import('../src/commands');
  const { reviewPolicy } = await import('../src/trustCommands');
  const { PagePanel } = await import('../src/pages');
  const events: string[] = [];
  const server = {
    output: { appendLine: () => {} },
    applyState: () => {},
    state: undefined,
    async request(method: string, params: unknown) {
      events.push(`${method} ${JSON.stringify(params)}`);
      if (method === 'admit/reviewPolicy') return { path: '/w/.admit/policy.json', trust: 'untrusted', content: '{}', builtIn: '{}', sum: 'abc', widens: ['allow npm test'] };
      if (method === 'admit/replay') return report('npm test');
      if (method === 'admit/tape') return { records: [] };
      if (method === 'admit/suggestRules') return { suggestions: [{ match: 'npm test', decision: 'allow', count: 2, examples: ['npm test'] }] };
      throw new Error(`unexpected ${method}`);
    },
  };
  const docs = { put: (name: string) => ({ scheme: 'admit', path: name }) };
  const panel = new PagePanel('admit.replay', []);
  const replay = (p: Record<string, unknown>, s: { what: string }) => showReplay(server as never, panel, p, s);
  vscode.created.messages.length = 0;
  vscode.answers.warning = (message) => {
    events.push(`asked: ${message}`);
    return undefined; // keep it untrusted
  };
  await reviewPolicy(server as never, docs as never, replay);
  const asked = events.findIndex((e) => e.startsWith('asked: admit: trust the workspace policy file'));
  const replayed = events.indexOf('admit/replay {"policy":"workspace"}');
  assert.ok(replayed >= 0 && asked > replayed, events.join('\n'));
  const page = vscode.created.panels.find((p) => p.viewType === 'admit.replay')!;
  assert.match(pageText(page.webview.html), /Before trusting the workspace policy file \/w\/\.admit\/policy\.json.*3 would change/s);
  assert.ok(!events.includes('admit/trustPolicy'), 'kept untrusted');
  const question = vscode.created.messages.find((m) => m.message.startsWith('admit: trust the workspace policy file'))!;
  const detail = (question.items[0] as { detail: string }).detail;
  assert.match(detail, /What trusting it would have done \(the replay page is open beside\):\nOn the tape, 9 calls judged again: 3 would change/);
  assert.match(detail, /• 2 that was refused \(not-in-allow-list\) would now run \(allowed\) \(npm test\)/);

  events.length = 0;
  vscode.answers.quickPick = () => {
    events.push('scope asked');
    return undefined; // the person stops there
  };
  const report2 = new CampaignReport(server as never, { set: () => {} } as never, new PagePanel('admit.report', []), panel);
  await report2.open();
  await report2.add(1, 0);
  const scope = events.indexOf('scope asked');
  const replayedRule = events.indexOf('admit/replay {"addRule":{"match":"npm test","decision":"allow","scope":"user"}}');
  assert.ok(replayedRule >= 0 && scope > replayedRule, events.join('\n'));
  assert.match(pageText(page.webview.html), /Before adding the rule allow npm test/);
  vscode.answers.warning = undefined;
  vscode.answers.quickPick = undefined;
});
