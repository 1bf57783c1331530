import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allowedAnswer, answerForLabel, ApprovalQueue, approvalBody, approvalHtml, approvalView, headline, lateNotice, modalPrompt, promptScript, toastItemMax, toastPrompt,
  type Prompter, type SettleReason, type Timers,
} from '../src/approvals';
import type { ApprovalAnswer, ApproveParams } from '../src/protocol';
import { page } from '../src/html';
import { plain } from '../src/text';
import { assertInertHtml, assertPlain, commandLink, hostile, links, notificationLink, pageText } from './hostile';

const nonce = 'AAAAAAAAAAAAAAAAAAAAAAAA';

/** A prompter whose prompts the test answers by hand, recording each close. */
function fakePrompter() {
  const shown: { view: ReturnType<typeof approvalView>; modal: boolean; click: (a: ApprovalAnswer | undefined) => void; closed?: SettleReason; waiting: number }[] = [];
  const prompt: Prompter = (view, modal) => {
    let click!: (a: ApprovalAnswer | undefined) => void;
    const answer = new Promise<ApprovalAnswer | undefined>((r) => (click = r));
    const s: (typeof shown)[number] = { view, modal, click, waiting: view.waiting };
    shown.push(s);
    return { answer, close: (how) => (s.closed = how), update: (n) => (s.waiting = n) };
  };
  return { shown, prompt };
}

/** Timers the test fires by hand. */
function fakeTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let seq = 0;
  const timers: Timers = {
    set: (fn, ms) => (pending.set(++seq, { fn, ms }), seq),
    clear: (h) => void pending.delete(h as number),
  };
  return { timers, pending, fireAll: () => { for (const [k, t] of [...pending]) { pending.delete(k); t.fn(); } } };
}

const tick = () => new Promise((r) => setImmediate(r));
const ask = (id: string, over: Partial<ApproveParams> = {}): ApproveParams => ({
  id, session: 'default', tool: 'deploy', summary: `deploy ${id}`, reason: 'deploy needs a person.', timeoutMs: 60000, ...over,
});
const rich = (over: Partial<ApproveParams> = {}): ApproveParams => ask('r', {
  tool: 'Bash', summary: 'npm test', command: 'npm test -- --grep "a very long pattern that a summary would cut"', agent: 'claude-code', session: 's7',
  cwd: '/w/app', targets: ['/w/app/src/a.ts'], confinement: 'landlock (ABI 4): workspace, no network', rule: { match: 'npm test *', decision: 'allow', scope: 'workspace' }, ...over,
});

test('the answers: Deny first, "always" only with a rule the server offered, naming the rule', () => {
  assert.deepEqual(approvalView(ask('1')).answers.map((a) => a.answer), ['deny', 'allow-once', 'allow-session']);
  const v = approvalView(rich());
  assert.deepEqual(v.answers.map((a) => a.answer), ['deny', 'allow-once', 'allow-session', 'allow-always']);
  assert.equal(v.answers[3].label, 'Always allow `npm test *` in this workspace');
  assert.match(v.answers[3].detail, /writes the rule \{match: "npm test \*", decision: "allow", scope: "workspace"\}/);
  // A rule that is not one the protocol defines is not offered.
  for (const rule of [{ match: '', decision: 'allow', scope: 'workspace' }, { match: 'x', decision: 'deny', scope: 'workspace' }, { match: 'x', decision: 'allow', scope: 'repo' }, 'npm', null]) {
    assert.equal(approvalView(ask('1', { rule: rule as never })).answers.length, 3, JSON.stringify(rule));
  }
  // Answers the question did not offer are deny.
  assert.equal(allowedAnswer(approvalView(ask('1')), 'allow-always'), 'deny');
  assert.equal(allowedAnswer(v, 'allow-always'), 'allow-always');
  assert.equal(allowedAnswer(v, undefined), 'deny');
});

test('the view shows the whole command, else the summary; the agent, session, reason, confinement', () => {
  const v = approvalView(rich());
  assert.deepEqual(v.what, { label: 'Command', text: 'npm test -- --grep "a very long pattern that a summary would cut"' });
  assert.equal(headline(v), 'claude-code (session s7) asks to run a command with Bash');
  const plainCall = approvalView(ask('2', { session: 'default' }));
  assert.deepEqual(plainCall.what, { label: 'Call', text: 'deploy 2' });
  assert.equal(plainCall.session, undefined);
  assert.equal(headline(plainCall), 'An agent asks to call deploy');
  assert.equal(headline(approvalView(ask('3', { tool: 'Write', summary: 'Write a.ts', targets: ['/w/a.ts'] }))), 'An agent asks to use Write on a path');
});

test('the modal: plain lines, every detail, Deny first (its default button), a label maps back to its answer', () => {
  const v = approvalView(rich());
  const m = modalPrompt(v);
  assert.equal(m.message, 'admit: claude-code (session s7) asks to run a command with Bash');
  assert.deepEqual(m.buttons, ['Deny', 'Allow once', 'Allow for this session', 'Always allow `npm test *` in this workspace']);
  for (const want of ['Command: npm test -- --grep "a very long pattern that a summary would cut"', 'Paths: /w/app/src/a.ts', 'In: /w/app', 'Why admit asks: deploy needs a person.', 'Runs confined by: landlock (ABI 4): workspace, no network', 'scope: "workspace"', 'No answer in 60 s refuses it.']) {
    assert.ok(m.detail.includes(want), `${want} in ${m.detail}`);
  }
  for (const [i, b] of m.buttons.entries()) assert.equal(answerForLabel(v, b), v.answers[i].answer);
  assert.equal(answerForLabel(v, undefined), 'deny', 'Escape');
  assert.equal(answerForLabel(v, 'Cancel'), 'deny');
});

test('the modal draws every text from the agent as plain text: no link, one line each', () => {
  for (const h of hostile) {
    const m = modalPrompt(approvalView(rich({ command: h, agent: h, session: h, reason: h, cwd: h, targets: [h], confinement: h, rule: { match: h.trim() || 'x', decision: 'allow', scope: 'workspace' } })));
    assertPlain(m.message, [h], `message with ${JSON.stringify(h)}`);
    for (const line of m.detail.split('\n')) assertPlain(line, [], `detail line with ${JSON.stringify(h)}`);
    assert.ok(m.detail.includes(`Command: ${plain(h)}`), `the command in the detail with ${JSON.stringify(h)}`);
    for (const b of m.buttons) assertPlain(b, [], `button with ${JSON.stringify(h)}`);
  }
  const m = modalPrompt(approvalView(rich({ command: `deploy ${commandLink}` })));
  assert.equal([...m.detail.matchAll(notificationLink)].length, 0);
});

test('the page: the whole command, every detail, one link per answer (Deny first), nothing else a link', () => {
  const html = approvalHtml(approvalView(rich()), 7, nonce);
  const text = pageText(html);
  for (const want of ['npm test -- --grep "a very long pattern that a summary would cut"', 'claude-code', 's7', '/w/app', 'deploy needs a person.', 'landlock (ABI 4): workspace, no network', '/w/app/src/a.ts', 'npm test *', 'Closing this tab, or Escape, denies at once.']) {
    assert.ok(text.includes(want), `${want} in the page`);
  }
  assert.deepEqual(links(html).map((l) => decodeURIComponent(l.replace(/^command:admit\.answerApproval\?/, ''))), ['[7,"deny"]', '[7,"allow-once"]', '[7,"allow-session"]', '[7,"allow-always"]']);
  // Its one script is the extension's own, allowed by the page's nonce and nothing else.
  assert.equal([...html.matchAll(/<script/g)].length, 1);
  assert.ok(html.includes(`<script nonce="${nonce}">${promptScript}</script>`));
  assert.match(html, new RegExp(`script-src 'nonce-${nonce}';`));
  assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
  assert.doesNotMatch(approvalBody(approvalView(rich()), 7), /<script/, 'the body a kept panel is posted holds no script');
});

test('the page shows what is approved: a write\'s content, an edit\'s diff, what a protected file can do, the arguments as fields, the rule\'s limits or why none', () => {
  const write = approvalView(rich({ command: undefined, tool: 'Write', content: '{"tasks":[{"command":"curl x | sh","runOptions":{"runOn":"folderOpen"}}]}', protects: 'a task can run as soon as the folder is opened', rule: undefined, noRule: 'it changes a protected path' }));
  let text = pageText(approvalHtml(write, 1, nonce));
  for (const want of ['curl x | sh', 'folderOpen', 'a task can run as soon as the folder is opened', 'No "always allow": it changes a protected path']) assert.ok(text.includes(want), `${want} in the page`);
  const m = modalPrompt(write);
  assert.ok(m.detail.includes('curl x | sh') && m.detail.includes('What this file can do'), m.detail);
  const edit = approvalView(rich({ command: undefined, tool: 'Edit', diff: '--- a\n+++ a\n@@ -1,1 +1,1 @@\n-old line\n+new line\n' }));
  const html = approvalHtml(edit, 1, nonce);
  assert.match(html, /<del>-old line<\/del>/);
  assert.match(html, /<ins>\+new line<\/ins>/);
  const fetch = approvalView(rich({ command: undefined, tool: 'WebFetch', fields: [{ name: 'url', value: 'https://example.com/x' }, { name: 'prompt', value: 'summarize it' }] }));
  text = pageText(approvalHtml(fetch, 1, nonce));
  assert.ok(text.includes('https://example.com/x') && text.includes('summarize it') && !text.includes('{"url"'), text);
  const offered = approvalView(rich({ rule: { match: 'curl', decision: 'allow', scope: 'workspace', covers: 'curl, with any options, when it reaches localhost:3000 only; sends nothing', effects: { hosts: ['localhost:3000'] } } }));
  assert.ok(pageText(approvalHtml(offered, 1, nonce)).includes('reaches localhost:3000 only'));
});

test('the page offers the diff editor only for a call whose whole file admit worked out', () => {
  const edit = (over: Partial<ApproveParams>) => approvalHtml(approvalView(rich({ command: undefined, tool: 'Edit', diff: '--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n', ...over })), 3, nonce);
  assert.ok(links(edit({ proposed: 'y\n', proposedFor: '/w/a.txt' })).some((l) => decodeURIComponent(l) === 'command:admit.showApprovalDiff?[3]'));
  assert.ok(!links(edit({})).some((l) => l.includes('showApprovalDiff')));
  assert.ok(!links(edit({ proposed: 'y\n' })).some((l) => l.includes('showApprovalDiff')), 'a file with no path is no diff');
});

test('the page draws every text from the agent inert', () => {
  for (const h of hostile) {
    const p = (x: string) => rich({ command: x, agent: x, session: x, reason: x, cwd: x, targets: [x, x], confinement: x, tool: x, rule: { match: x.trim() ? x : 'x', decision: 'allow', scope: 'workspace', covers: x }, content: x, diff: `--- f\n+++ f\n@@ -1 +1 @@\n-${x.replace(/\n/g, ' ')}\n+${x.replace(/\n/g, ' ')}`, protects: x, fields: [{ name: x, value: x }] });
    // The body (what a kept panel is posted, and the page's body) in a page with no script of its own.
    const inert = (x: string) => page('admit', approvalBody(approvalView(p(x)), 1), nonce);
    assertInertHtml(inert(h), inert('x'), [h], `prompt page with ${JSON.stringify(h)}`);
  }
});

test('each answer settles the question; the prompt is closed after', async () => {
  for (const a of ['allow-once', 'allow-session', 'deny', 'allow-always'] as const) {
    const { shown, prompt } = fakePrompter();
    const q = new ApprovalQueue({ prompt, modal: () => true, timers: fakeTimers().timers });
    const answer = q.ask(rich());
    await tick();
    assert.equal(shown.length, 1);
    assert.equal(shown[0].modal, true);
    shown[0].click(a);
    assert.equal(await answer, a);
    await tick();
    assert.equal(shown[0].closed, 'answered');
    assert.equal(q.pending, 0);
  }
});

test('a dismissal (Esc, the tab closed) is deny at once, not at the deadline', async () => {
  const { shown, prompt } = fakePrompter();
  const t = fakeTimers();
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: t.timers });
  const answer = q.ask(ask('d'));
  await tick();
  shown[0].click(undefined);
  assert.equal(await answer, 'deny');
  assert.equal(t.pending.size, 0, 'no deadline left waiting');
});

test('"always" from a prompt that did not offer it is deny', async () => {
  const { shown, prompt } = fakePrompter();
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: fakeTimers().timers });
  const answer = q.ask(ask('n'));
  await tick();
  shown[0].click('allow-always');
  assert.equal(await answer, 'deny');
});

test('a prompt that cannot be shown counts as dismissed: deny', async () => {
  const q = new ApprovalQueue({ prompt: () => { throw new Error('no window'); }, modal: () => false, timers: fakeTimers().timers });
  assert.equal(await q.ask(ask('x')), 'deny');
  const q2 = new ApprovalQueue({ prompt: () => ({ answer: Promise.reject(new Error('gone')), close: () => {} }), modal: () => false, timers: fakeTimers().timers });
  assert.equal(await q2.ask(ask('y')), 'deny');
});

test('several questions are shown one after another, none lost, each knowing how many wait', async () => {
  const { shown, prompt } = fakePrompter();
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: fakeTimers().timers });
  const a1 = q.ask(ask('1'));
  const a2 = q.ask(ask('2'));
  const a3 = q.ask(ask('3'));
  await tick();
  assert.equal(shown.length, 1, 'one at a time');
  assert.equal(shown[0].waiting, 2, 'the prompt is told of the questions asked after it');
  assert.equal(q.pending, 3);
  shown[0].click('allow-once');
  await tick();
  assert.equal(shown.length, 2);
  assert.match(shown[1].view.what.text, /deploy 2/);
  assert.equal(shown[1].waiting, 1);
  q.cancel('3');
  assert.equal(shown[1].waiting, 0, 'and of a question withdrawn behind it');
  shown[1].click('deny');
  await tick();
  assert.equal(shown.length, 2, 'the withdrawn question is never shown');
  assert.deepEqual(await Promise.all([a1, a2, a3]), ['allow-once', 'deny', 'deny']);
});

test('approvalCancelled denies at once, closes the prompt, and a late click is told, not dropped', async () => {
  const { shown, prompt } = fakePrompter();
  const settled: [string, ApprovalAnswer, string][] = [];
  const late: [string, SettleReason][] = [];
  const q = new ApprovalQueue({
    prompt, modal: () => false, timers: fakeTimers().timers,
    onSettled: (id, a, how) => settled.push([id, a, how]), onLate: (v, how) => late.push([v.id, how]),
  });
  const a1 = q.ask(ask('1'));
  const a2 = q.ask(ask('2'));
  await tick();
  assert.equal(q.cancel('1'), true);
  assert.equal(await a1, 'deny');
  await tick();
  assert.equal(shown[0].closed, 'cancelled', 'the prompt is taken down');
  assert.equal(shown.length, 2, 'the next question is shown');
  shown[0].click('allow-once'); // a click on the stale prompt
  await tick();
  assert.deepEqual(late, [['1', 'cancelled']]);
  shown[1].click('allow-once');
  assert.equal(await a2, 'allow-once');
  assert.deepEqual(settled, [['1', 'deny', 'cancelled'], ['2', 'allow-once', 'answered']]);
  assert.equal(q.cancel('1'), false, 'cancelling twice changes nothing');
});

test('a question cancelled before it is shown is never shown', async () => {
  const { shown, prompt } = fakePrompter();
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: fakeTimers().timers });
  const a1 = q.ask(ask('1'));
  const a2 = q.ask(ask('2'));
  q.cancel('2');
  assert.equal(await a2, 'deny');
  await tick();
  shown[0].click('deny');
  await a1;
  await tick();
  assert.equal(shown.length, 1);
});

test('the deadline denies and closes the prompt; a late click says the deadline passed', async () => {
  const { shown, prompt } = fakePrompter();
  const t = fakeTimers();
  const late: string[] = [];
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: t.timers, onLate: (v, how, a) => late.push(lateNotice(v, how, a)) });
  const a = q.ask(ask('1', { timeoutMs: 5000 }));
  await tick();
  assert.equal([...t.pending.values()][0].ms, 5000);
  t.fireAll();
  assert.equal(await a, 'deny');
  await tick();
  assert.equal(shown[0].closed, 'deadline');
  shown[0].click('allow-once');
  await tick();
  assert.equal(q.pending, 0);
  assert.deepEqual(late, ['admit: your answer to "deploy 1" came too late: its deadline passed, so the call was refused. It changed nothing.']);
});

test('the late notice is plain text whatever the command holds', () => {
  for (const h of hostile) {
    for (const how of ['answered', 'cancelled', 'deadline', 'stopped'] as const) assertPlain(lateNotice(approvalView(ask('1', { command: h })), how, 'deny'), [], `late notice with ${JSON.stringify(h)}`);
  }
});

test('an answer clears the deadline timer', async () => {
  const { shown, prompt } = fakePrompter();
  const t = fakeTimers();
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: t.timers });
  const a = q.ask(ask('1'));
  await tick();
  shown[0].click('allow-once');
  await a;
  assert.equal(t.pending.size, 0);
});

test('cancelAll (server gone) denies every question', async () => {
  const { prompt } = fakePrompter();
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: fakeTimers().timers });
  const all = Promise.all([q.ask(ask('1')), q.ask(ask('2'))]);
  await tick();
  q.cancelAll();
  assert.deepEqual(await all, ['deny', 'deny']);
  assert.equal(q.pending, 0);
});

test('a withdrawal at the deadline (the server cancels when its deadline passes) is told as the deadline', async () => {
  const { prompt } = fakePrompter();
  let now = 1_000_000;
  const settled: string[] = [];
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: fakeTimers().timers, now: () => now, onSettled: (id, _a, how) => settled.push(`${id}:${how}`) });
  void q.ask(ask('early', { timeoutMs: 5000 }));
  void q.ask(ask('late', { timeoutMs: 5000 }));
  await tick();
  now += 1000;
  q.cancel('early');
  now += 3500;
  q.cancel('late');
  assert.deepEqual(settled, ['early:cancelled', 'late:deadline']);
});

/** toastLinks lists the links VS Code would draw in a notification's message, as [label, href]. */
const toastLinks = (m: string) => [...m.matchAll(notificationLink)].map((x) => [x[1], x[2]]);

test('the notification: the answers first as links with the token (Deny first), then the question; "always" stays on the panel', () => {
  const t = toastPrompt(approvalView(rich()), 7);
  assert.equal(t.title, 'admit');
  assert.equal(t.whole, true);
  const enc = (a: string) => `command:admit.answerApproval?${encodeURIComponent(JSON.stringify([7, a]))}`;
  assert.deepEqual(toastLinks(t.message), [['Deny', enc('deny')], ['Allow once', enc('allow-once')], ['Allow for this session', enc('allow-session')], ['Show the whole question', 'command:admit.showApproval']]);
  assert.ok(t.message.startsWith('[Deny]('), 'the links come before any text of the agent');
  for (const want of ['claude-code (session s7) asks to run a command with Bash', 'Command: npm test -- --grep "a very long pattern that a summary would cut"', 'Paths: /w/app/src/a.ts']) assert.ok(t.message.includes(want), `${want} in ${t.message}`);
  const fetch = toastPrompt(approvalView(rich({ command: undefined, tool: 'WebFetch', fields: [{ name: 'url', value: 'https://example.com/x' }] })), 1);
  assert.ok(fetch.message.includes('url: https://example.com/x') && !fetch.message.includes('Call: WebFetch'), fetch.message);
});

test('the notification allows only what it shows whole: a long command, a write\'s content, an edit, a protected file get Deny and the panel', () => {
  for (const over of [
    { command: 'x'.repeat(toastItemMax + 1) },
    { command: undefined, tool: 'Write', content: 'curl x | sh' },
    { command: undefined, tool: 'Edit', diff: '--- a\n+++ a\n@@ -1 +1 @@\n-a\n+b\n' },
    { protects: 'a task can run as soon as the folder is opened' },
    { command: undefined, tool: 'WebFetch', fields: [{ name: 'url', value: 'https://example.com/' + 'y'.repeat(toastItemMax) }] },
    { targets: ['/w/a', '/w/b', '/w/c', '/w/d'] },
    { command: 'c'.repeat(toastItemMax), targets: ['/w/' + 'a'.repeat(toastItemMax - 3), '/w/' + 'b'.repeat(toastItemMax - 3), '/w/' + 'c'.repeat(toastItemMax - 3)] },
  ] as Partial<ApproveParams>[]) {
    const t = toastPrompt(approvalView(rich(over)), 3);
    assert.equal(t.whole, false, JSON.stringify(over));
    assert.deepEqual(toastLinks(t.message).map((l) => l[0]), ['Deny', 'Show the whole question'], JSON.stringify(over));
    assert.match(t.message, /to allow it, see all of it on the panel/);
    assert.ok(t.message.length <= 980, `within what a notification shows: ${t.message.length}`);
  }
});

test('the notification draws every text from the agent inert: no link but its own answers, no icon, one line', () => {
  for (const h of [...hostile, '$(terminal) rm -rf $(pwd)', '[Allow once', 'x [Deny']) {
    const t = toastPrompt(approvalView(rich({ command: h, agent: h, session: h, tool: h, targets: [h], fields: [] })), 5);
    assert.deepEqual(toastLinks(t.message).map((l) => l[0]), ['Deny', 'Allow once', 'Allow for this session', 'Show the whole question'].slice(0, t.whole ? 4 : 1).concat(t.whole ? [] : ['Show the whole question']), `links with ${JSON.stringify(h)}`);
    const rest = t.message.slice(t.message.indexOf(') — '));
    assertPlain(rest, [], `the question with ${JSON.stringify(h)}`);
    assert.doesNotMatch(rest, /\$\(/, 'a progress notification would drop $(name) as an icon');
  }
});
