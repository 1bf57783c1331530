import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerFor, ApprovalQueue, approvalMessage, buttons, type Prompter, type Timers } from '../src/approvals';
import type { ApprovalAnswer, ApproveParams } from '../src/protocol';
import { assertPlain, commandLink, hostile, notificationLink } from './hostile';

/** A prompter whose toasts the test clicks by hand. */
function fakePrompter() {
  const shown: { message: string; modal: boolean; buttons: string[]; click: (c: string | undefined) => void }[] = [];
  const prompt: Prompter = (message, modal, btns) =>
    new Promise<string | undefined>((resolve) => shown.push({ message, modal, buttons: btns, click: resolve }));
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

test('button labels map to answers; dismissed is deny', () => {
  assert.equal(answerFor(buttons.allowOnce), 'allow-once');
  assert.equal(answerFor(buttons.allowSession), 'allow-session');
  assert.equal(answerFor(buttons.deny), 'deny');
  assert.equal(answerFor(undefined), 'deny');
  assert.equal(answerFor('something else'), 'deny');
});

test('message carries summary and reason, and a named session', () => {
  assert.equal(approvalMessage(ask('1')), 'admit: deploy 1. deploy needs a person.');
  assert.equal(approvalMessage(ask('1', { session: 's7', summary: '' })), 'admit (session s7): deploy. deploy needs a person.');
});

test('the prompt draws the agent\'s summary, reason and session as plain text: no link, one line', () => {
  for (const h of hostile) {
    const m = approvalMessage(ask('1', { session: h, summary: h, reason: h }));
    assertPlain(m, [h], `prompt with ${JSON.stringify(h)}`);
    assert.ok(m.startsWith('admit'), m);
  }
  const m = approvalMessage(ask('1', { summary: `deploy {"target":"${commandLink}"}` }));
  assert.match(m, /^admit: deploy \{"target":"\[Answer the waiting question\] \(command:workbench\.action\.terminal\.sendSequence\?/);
  assert.equal([...m.matchAll(notificationLink)].length, 0);
});

test('each button answers; three buttons; modal follows the setting', async () => {
  for (const [click, want] of [[buttons.allowOnce, 'allow-once'], [buttons.allowSession, 'allow-session'], [buttons.deny, 'deny'], [undefined, 'deny']] as const) {
    const { shown, prompt } = fakePrompter();
    const q = new ApprovalQueue({ prompt, modal: () => true, timers: fakeTimers().timers });
    const answer = q.ask(ask('a'));
    await tick();
    assert.equal(shown.length, 1);
    assert.deepEqual(shown[0].buttons, ['Allow once', 'Allow for this session', 'Deny']);
    assert.equal(shown[0].modal, true);
    shown[0].click(click);
    assert.equal(await answer, want);
    assert.equal(q.pending, 0);
  }
});

test('a prompt that fails counts as dismissed: deny', async () => {
  const q = new ApprovalQueue({ prompt: () => Promise.reject(new Error('no window')), modal: () => false, timers: fakeTimers().timers });
  assert.equal(await q.ask(ask('x')), 'deny');
});

test('several questions are shown one after another, none lost', async () => {
  const { shown, prompt } = fakePrompter();
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: fakeTimers().timers });
  const a1 = q.ask(ask('1'));
  const a2 = q.ask(ask('2'));
  const a3 = q.ask(ask('3'));
  await tick();
  assert.equal(shown.length, 1, 'one at a time');
  assert.equal(q.pending, 3);
  shown[0].click(buttons.allowOnce);
  await tick();
  assert.equal(shown.length, 2);
  assert.match(shown[1].message, /deploy 2/);
  shown[1].click(buttons.deny);
  await tick();
  shown[2].click(buttons.allowSession);
  assert.deepEqual(await Promise.all([a1, a2, a3]), ['allow-once', 'deny', 'allow-session']);
});

test('approvalCancelled denies at once, moves on, and a late click is harmless', async () => {
  const { shown, prompt } = fakePrompter();
  const settled: [string, ApprovalAnswer, string][] = [];
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: fakeTimers().timers, onSettled: (id, a, how) => settled.push([id, a, how]) });
  const a1 = q.ask(ask('1'));
  const a2 = q.ask(ask('2'));
  await tick();
  assert.equal(q.cancel('1'), true);
  assert.equal(await a1, 'deny');
  await tick();
  assert.equal(shown.length, 2, 'the next question is shown');
  shown[0].click(buttons.allowOnce); // the stale toast, clicked late
  await tick();
  shown[1].click(buttons.allowOnce);
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
  shown[0].click(buttons.deny);
  await a1;
  await tick();
  assert.equal(shown.length, 1);
});

test('the deadline denies, and the late click is ignored', async () => {
  const { shown, prompt } = fakePrompter();
  const t = fakeTimers();
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: t.timers });
  const a = q.ask(ask('1', { timeoutMs: 5000 }));
  await tick();
  assert.equal([...t.pending.values()][0].ms, 5000);
  t.fireAll();
  assert.equal(await a, 'deny');
  shown[0].click(buttons.allowOnce);
  await tick();
  assert.equal(q.pending, 0);
});

test('an answer clears the deadline timer', async () => {
  const { shown, prompt } = fakePrompter();
  const t = fakeTimers();
  const q = new ApprovalQueue({ prompt, modal: () => false, timers: t.timers });
  const a = q.ask(ask('1'));
  await tick();
  shown[0].click(buttons.allowOnce);
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
