import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApprovalQueue } from '../src/approvals';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DocumentStore } from '../src/documents';
import { ApprovalPrompts, approvalViewType, openProposedDiff } from '../src/prompts';
import type { ApproveParams } from '../src/protocol';
import { links } from './hostile';
import { created, executed, type MockWebviewPanel } from './vscode-mock';

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
const ask = (id: string, over: Partial<ApproveParams> = {}): ApproveParams => ({ id, tool: 'deploy', summary: `deploy ${id}`, reason: 'needs a person', ...over });

function setup() {
  created.panels.length = 0;
  created.messages.length = 0;
  created.progress.length = 0;
  const logs: string[] = [];
  const prompts = new ApprovalPrompts((l) => logs.push(l));
  const late: string[] = [];
  const q = new ApprovalQueue({ prompt: prompts.prompter, modal: () => false, onLate: (v, how) => late.push(`${v.id}:${how}`) });
  return { prompts, q, logs, late };
}

/** click follows one of the page's links, as VS Code does for an enabled command URI. */
function click(prompts: ApprovalPrompts, panel: MockWebviewPanel, answer: string): void {
  const href = links(panel.webview.html).find((l) => decodeURIComponent(l).endsWith(`,"${answer}"]`));
  assert.ok(href, `a link for ${answer}`);
  const [token, a] = JSON.parse(decodeURIComponent(href.replace(/^command:admit\.answerApproval\?/, '')));
  prompts.answer(token, a);
}

test('the panel runs only its own script, enables only the answer command, opens beside without taking focus', async () => {
  const { prompts, q } = setup();
  const a = q.ask(ask('1'));
  await tick();
  const [panel] = created.panels;
  assert.equal(panel.viewType, approvalViewType);
  assert.equal(panel.options.enableScripts, true);
  assert.equal(panel.options.retainContextWhenHidden, true, 'a kept panel behind another tab still takes a post');
  assert.equal([...panel.webview.html.matchAll(/<script/g)].length, 1);
  assert.deepEqual(panel.options.enableCommandUris, ['admit.answerApproval', 'admit.showApprovalDiff']);
  assert.deepEqual(panel.options.localResourceRoots, []);
  assert.deepEqual(panel.showOptions, { viewColumn: -2, preserveFocus: true });
  click(prompts, panel, 'allow-once');
  assert.equal(await a, 'allow-once');
  await tick(300);
  assert.equal(panel.disposed, false, 'after a click the panel stays a while for the next question');
  assert.doesNotMatch(panel.webview.html, /answerApproval/, 'with no answer on it');
  const b = q.ask(ask('2'));
  await tick();
  assert.equal(created.panels.length, 1, 'the next question is drawn into the same panel');
  assert.match(panel.webview.html, /deploy 2/);
  assert.equal(panel.webview.drawn, 1, 'posted to the kept page, never drawn as a new page');
  assert.ok(panel.webview.posted.some((m) => JSON.stringify(m).includes('deploy 2')));
  prompts.dismiss();
  assert.equal(await b, 'deny');
  await tick(300);
  assert.equal(panel.disposed, true, 'Escape takes the panel down at once');
});

test('closing the tab denies at once; the next question gets a panel of its own', async () => {
  const { q } = setup();
  const a1 = q.ask(ask('1'));
  const a2 = q.ask(ask('2'));
  await tick();
  assert.equal(created.panels.length, 1);
  assert.match(created.panels[0].title, /1 more waiting/);
  created.panels[0].dispose(); // the person closes the tab
  assert.equal(await a1, 'deny');
  await tick();
  assert.equal(created.panels.length, 2);
  assert.match(created.panels[1].webview.html, /deploy 2/);
  created.panels[1].dispose();
  assert.equal(await a2, 'deny');
});

test('Escape (admit.dismissApproval) denies the question shown, and closes its panel', async () => {
  const { prompts, q } = setup();
  const a = q.ask(ask('1'));
  await tick();
  const [panel] = created.panels;
  prompts.dismiss();
  assert.equal(await a, 'deny');
  await tick(300);
  assert.equal(panel.disposed, true, 'no live-looking buttons stay behind an Escape');
});

test('the next question reuses the panel; a withdrawn question closes it', async () => {
  const { prompts, q } = setup();
  const a1 = q.ask(ask('1'));
  const a2 = q.ask(ask('2'));
  await tick();
  const [panel] = created.panels;
  click(prompts, panel, 'deny');
  assert.equal(await a1, 'deny');
  await tick();
  assert.equal(created.panels.length, 1, 'reused');
  assert.match(panel.webview.html, /deploy 2/);
  q.cancel('2');
  assert.equal(await a2, 'deny');
  await tick(300);
  assert.equal(panel.disposed, true, 'a question that ended is taken down');
});

test('a click on a page that is no longer current is told, and changes nothing', async () => {
  const { prompts, q, late } = setup();
  const a1 = q.ask(ask('1', { timeoutMs: 50 }));
  await tick();
  const [panel] = created.panels;
  const stale = panel.webview.html;
  assert.equal(await a1, 'deny'); // the deadline
  await tick(300);
  assert.equal(panel.disposed, true);
  panel.webview.html = stale;
  click(prompts, panel, 'allow-once');
  await tick();
  assert.deepEqual(late, ['1:deadline']);
  // A link no prompt made is ignored.
  prompts.answer('1', 'allow-once');
  prompts.answer(999, 'allow-once');
  assert.ok(created.messages.some((m) => /already ended/.test(m.message)));
});

test('the time a question takes to appear is logged, once, when the page says it is on screen', async () => {
  const { prompts, q, logs } = setup();
  const a = q.ask(ask('1'));
  await tick(5);
  assert.equal(logs.filter((l) => /^question on screen \d+ ms after it came \(drawn as a new page\)$/.test(l)).length, 1, logs.join('\n'));
  click(prompts, created.panels[0], 'allow-once');
  await a;
  const b = q.ask(ask('2'));
  await tick(5);
  assert.equal(logs.filter((l) => /^question on screen \d+ ms after it came \(posted to the kept page\)$/.test(l)).length, 1, logs.join('\n'));
  prompts.dismiss();
  await b;
});

test('a page that does not take a post is drawn whole', async () => {
  const { q, prompts } = setup();
  const a = q.ask(ask('1'));
  await tick(5);
  const [panel] = created.panels;
  click(prompts, panel, 'deny');
  await a;
  panel.webview.postMessage = () => Promise.resolve(false);
  const b = q.ask(ask('2'));
  await tick(5);
  assert.match(panel.webview.html, /deploy 2/);
  assert.ok(panel.webview.drawn >= 2);
  prompts.dismiss();
  await b;
});

test('a write\'s or an edit\'s change is one click away in the diff editor: the file now beside the file as the call leaves it', async () => {
  const logs: string[] = [];
  const opened: string[] = [];
  const prompts = new ApprovalPrompts((l) => logs.push(l), async (v) => void opened.push(v.proposed?.text ?? ''));
  created.panels.length = 0;
  const q = new ApprovalQueue({ prompt: prompts.prompter, modal: () => false });
  const a = q.ask(ask('1', { tool: 'Edit', diff: '--- a\n+++ a\n@@\n-x\n+y\n', proposed: 'y\n', proposedFor: '/w/a.txt' }));
  await tick();
  const [panel] = created.panels;
  const href = links(panel.webview.html).find((l) => l.startsWith('command:admit.showApprovalDiff?'));
  assert.ok(href, 'a link to the diff editor');
  const [token] = JSON.parse(decodeURIComponent(href.replace(/^command:admit\.showApprovalDiff\?/, '')));
  prompts.showDiff(token);
  await tick();
  assert.deepEqual(opened, ['y\n']);
  prompts.showDiff(12345);
  assert.ok(logs.some((l) => /ignored a diff link/.test(l)));
  assert.equal(q.pending, 1, 'the question stays open');
  prompts.dismiss();
  assert.equal(await a, 'deny');
  // No proposed file: no link.
  const b = q.ask(ask('2', { tool: 'Edit', diff: '--- a\n+++ a\n@@\n-x\n+y\n' }));
  await tick(200);
  assert.ok(!links(created.panels.at(-1)!.webview.html).some((l) => l.startsWith('command:admit.showApprovalDiff')));
  prompts.dismiss();
  await b;
});

test('the diff editor compares the file on disk with the proposed text, or an empty document for a new file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-diff-'));
  const file = path.join(dir, 'a.txt');
  fs.writeFileSync(file, 'x\n');
  const docs = new DocumentStore();
  const view = (p: string) => ({ proposed: { text: 'y\n', path: p } }) as Parameters<typeof openProposedDiff>[1];
  executed.length = 0;
  await openProposedDiff(docs, view(file));
  const [left, right, title] = executed.at(-1)!.args as [{ scheme: string; fsPath: string }, { scheme: string; path: string }, string];
  assert.equal(executed.at(-1)!.command, 'vscode.diff');
  assert.deepEqual([left.scheme, left.fsPath], ['file', file]);
  assert.equal(right.scheme, 'admit');
  assert.equal(docs.provideTextDocumentContent(right as never), 'y\n');
  assert.match(title, /a\.txt/);
  await openProposedDiff(docs, view(path.join(dir, 'new.txt')));
  const [newLeft] = executed.at(-1)!.args as [{ scheme: string; path: string }];
  assert.equal(newLeft.scheme, 'admit');
  assert.equal(docs.provideTextDocumentContent(newLeft as never), '');
  fs.rmSync(dir, { recursive: true });
});

test('the status bar\'s click reveals the question with focus', async () => {
  const { prompts, q } = setup();
  assert.equal(prompts.reveal(), false);
  const a = q.ask(ask('1'));
  await tick();
  assert.equal(prompts.reveal(), true);
  assert.deepEqual(created.panels[0].revealed.at(-1), { column: 2, preserveFocus: false });
  prompts.dismiss();
  await a;
});

/** toastClick follows one of the notification's answer links, as VS Code does for a command link in a message. */
function toastClick(prompts: ApprovalPrompts, message: string, answer: string): void {
  const m = message.match(new RegExp(`\\]\\(command:admit\\.answerApproval\\?([^)]*${encodeURIComponent(`"${answer}"`)}[^)]*)\\)`));
  assert.ok(m, `a link for ${answer} in ${message}`);
  const [token, a] = JSON.parse(decodeURIComponent(m[1]));
  prompts.answer(token, a);
}

test('a new panel: the question shows at once as a progress notification, which closes when the panel answers it', async () => {
  const { prompts, q } = setup();
  const a = q.ask(ask('1'));
  const [toast] = created.progress;
  assert.ok(toast, 'shown as the question came, before the panel drew');
  assert.deepEqual(toast.options, { location: 15, title: 'admit', cancellable: true }, 'with a button, so it is drawn whole');
  assert.match(toast.messages[0], /deploy 1/);
  await tick();
  click(prompts, created.panels[0], 'allow-once');
  assert.equal(await a, 'allow-once');
  await tick();
  assert.equal(toast.closed, true, 'answered on the panel: the notification goes');
  // The kept page shows the next question in a few milliseconds: no notification.
  const b = q.ask(ask('2'));
  await tick();
  assert.equal(created.progress.length, 1);
  click(prompts, created.panels[0], 'deny');
  assert.equal(await b, 'deny');
});

test('answered on the notification: the question is answered once, the notification closes, the panel shows no answer', async () => {
  const { prompts, q } = setup();
  const a = q.ask(ask('1'));
  await tick();
  const [toast] = created.progress;
  const [panel] = created.panels;
  toastClick(prompts, toast.messages[0], 'allow-session');
  assert.equal(await a, 'allow-session');
  await tick();
  assert.equal(toast.closed, true);
  assert.doesNotMatch(panel.webview.html, /answerApproval/, 'the panel offers no answer');
  // The panel's link for the same question now changes nothing (and is told).
  prompts.answer(1, 'allow-once');
  await tick();
  assert.ok(created.messages.some((m) => /already ended/.test(m.message)));
});

test('the notification\'s Cancel is a click that denies, and closes both', async () => {
  const { q } = setup();
  const a = q.ask(ask('1'));
  await tick();
  created.progress[0].cancel();
  assert.equal(await a, 'deny');
  await tick();
  assert.equal(created.progress[0].closed, true);
  await tick(300);
  assert.equal(created.panels[0].disposed, false, 'a click: the panel stays a while, with no answer on it');
  assert.doesNotMatch(created.panels[0].webview.html, /answerApproval/);
});

test('a notification never answers by itself: hidden, it leaves the question open; Escape, closing the tab or the deadline close it', async () => {
  const { prompts, q } = setup();
  let settled = false;
  const a = q.ask(ask('1'));
  void a.then(() => (settled = true));
  await tick(50);
  assert.equal(settled, false, 'no answer until a click (hiding the notification is nothing to the extension)');
  prompts.dismiss();
  assert.equal(await a, 'deny');
  await tick();
  assert.equal(created.progress[0].closed, true, 'Escape');
  await tick(300);
  const b = q.ask(ask('2'));
  await tick();
  created.panels.at(-1)?.dispose();
  assert.equal(await b, 'deny');
  await tick();
  assert.equal(created.progress.at(-1)?.closed, true, 'closing the tab');
  await tick(300);
  const c = q.ask(ask('3', { timeoutMs: 30 }));
  assert.equal(await c, 'deny');
  await tick();
  assert.equal(created.progress.at(-1)?.closed, true, 'the deadline');
  prompts.dispose();
});
