import assert from 'node:assert/strict';
import { test } from 'node:test';
import { page } from '../src/html';
import { commandHref, htmlBlock, htmlProse, htmlText, mdCell, mdCode, mdText, oneLine, pickText, plain, prose, proseText, renderProse, trustedCommands } from '../src/text';
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

test('html: every hostile text is characters, never markup; a pre keeps its line breaks only', () => {
  for (const h of hostile) {
    const t = htmlText(h);
    assert.doesNotMatch(t, /[<>"']/, JSON.stringify(h));
    assert.doesNotMatch(t, /\n/);
    const b = htmlBlock(h);
    assert.doesNotMatch(b, /[<>"']/, JSON.stringify(h));
    assert.equal(b.split('\n').length, h.split('\n').length);
    assert.doesNotMatch(b, /[\u0000-\u0009\u000b-\u001f\u202e]/);
  }
  assert.equal(htmlText('<a href="x">&</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;');
  assert.equal(htmlBlock('cat <<EOF\nhi\u202e\nEOF'), 'cat &lt;&lt;EOF\nhi\\u202e\nEOF');
  assert.equal(htmlProse(prose('grant `<b>` now')), 'grant <code>&lt;b&gt;</code> now');
});

test('commandHref: only admit commands, with JSON arguments encoded', () => {
  assert.equal(commandHref('admit.answerApproval', [3, 'deny']), 'command:admit.answerApproval?%5B3%2C%22deny%22%5D');
  assert.throws(() => commandHref('workbench.action.terminal.sendSequence', []));
  assert.throws(() => commandHref('admit.x?y', []));
});

test('pickText: a Quick Pick does not draw the text as an icon', () => {
  assert.equal(pickText('$(terminal) run\nme'), '$ (terminal) run\\nme');
});

test('a page runs nothing: the policy forbids scripts and loads; the nonce is checked', () => {
  const html = page('t<', '<p>x</p>', 'AAAAAAAAAAAAAAAAAAAAAAAA');
  assert.match(html, /content="default-src 'none'; script-src 'none'; style-src 'nonce-AAAAAAAAAAAAAAAAAAAAAAAA'; img-src 'none';/);
  assert.match(html, /<title>t&lt;<\/title>/);
  assert.throws(() => page('t', '', "x' 'unsafe-inline"));
});
