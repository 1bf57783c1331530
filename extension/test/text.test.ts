import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mdCell, mdCode, mdText, oneLine, plain, prose, proseText, renderProse, trustedCommands } from '../src/text';
import { assertPlain, commandLink, hostile, render, renderInline, tags, textOf } from './hostile';

test('oneLine shows line breaks, controls and bidi overrides as escapes', () => {
  assert.equal(oneLine('a\nb\r\tc'), 'a\\nb\\r\\tc');
  assert.equal(oneLine('x\u202ey\u0000z\u2028'), 'x\\u202ey\\u0000z\\u2028');
  assert.equal(oneLine('plain text, ünïcode, 日本'), 'plain text, ünïcode, 日本');
});

test('mdText: every hostile text renders as exactly its characters, with no markup', () => {
  for (const h of [...hostile, '']) {
    const html = renderInline(mdText(h));
    assert.deepEqual(tags(html), [], `${JSON.stringify(h)} made markup: ${html}`);
    assert.equal(textOf(html), oneLine(h), JSON.stringify(h));
    // As a block too: no heading, list, quote, code block or table starts.
    const block = render(mdText(h));
    assert.deepEqual(tags(block).filter((t) => !/^<\/?p$/.test(t)), [], `${JSON.stringify(h)} as a block: ${block}`);
  }
});

test('mdCode: one code span holding exactly the text, whatever backticks it has', () => {
  for (const h of [...hostile, '', '``', 'a ` b', ' lead', 'trail ', ' both ']) {
    const html = renderInline(mdCode(h));
    assert.deepEqual(tags(html), ['<code', '</code'], `${JSON.stringify(h)}: ${html}`);
    const want = oneLine(h) === '' ? ' ' : oneLine(h);
    assert.equal(textOf(html), want, JSON.stringify(h));
  }
});

test('mdCell: one table cell holding exactly the text, pipes included', () => {
  for (const h of hostile) {
    const html = render(`| a | b |\n| --- | --- |\n| ${mdCell(h)} | end |\n`);
    const cells = [...html.matchAll(/<td>(.*?)<\/td>/g)].map((m) => m[1]);
    assert.equal(cells.length, 2, `${JSON.stringify(h)} split the row: ${html}`);
    assert.equal(textOf(cells[0]), oneLine(h) === '' ? ' ' : oneLine(h), JSON.stringify(h));
    assert.equal(cells[1], 'end');
  }
});

test('prose keeps the server\'s code spans and nothing else', () => {
  const p = prose('add the tool to `allow`, or [ask](command:x) <b>now</b>');
  assert.deepEqual(p, ['add the tool to ', { code: 'allow' }, ', or [ask](command:x) <b>now</b>']);
  assert.equal(proseText(p), 'add the tool to `allow`, or [ask](command:x) <b>now</b>');
  const html = renderInline(renderProse(p));
  assert.deepEqual(tags(html), ['<code', '</code']);
  assert.equal(textOf(html), 'add the tool to allow, or [ask](command:x) <b>now</b>');
  for (const h of hostile) assert.deepEqual(tags(renderInline(renderProse(prose(h)))).filter((t) => !/code$/.test(t)), [], JSON.stringify(h));
});

test('plain: no link VS Code would make in a notification, the text still readable', () => {
  for (const h of hostile) assertPlain(plain(h), [h], 'plain');
  assert.equal(plain(commandLink).startsWith('[Answer the waiting question] (command:workbench.action.terminal.sendSequence?'), true);
});

test('trust: none, or exactly the commands named', () => {
  assert.equal(trustedCommands([]), false);
  assert.deepEqual(trustedCommands(['admit.restartServer']), { enabledCommands: ['admit.restartServer'] });
});
