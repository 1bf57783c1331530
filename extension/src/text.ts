// Drawing text that is not ours. Every string an agent, a repository or a tool result
// wrote (a command, a tool name, a path, a reason quoting either, a policy error) goes
// through one of these before VS Code draws it, so that it shows as the characters it
// is and never as a link, a command, markup or a second line. Pure, no VS Code.
//
// Three surfaces, three escapes:
//   - Markdown (tooltips, the campaign report): mdText for prose, mdCode for a code
//     span, mdCell for a code span in a table cell. Only the extension's own fixed
//     links are written as links, and only those commands are trusted (trustedCommands).
//   - Plain text that VS Code still scans for `[label](command:...)` links
//     (notifications, dialogs): plain.
//   - Plain text that is never parsed (tree labels and descriptions): oneLine; Quick
//     Pick labels and descriptions, which draw `$(icon)`: pickText.

/**
 * Characters that would change what a line shows: C0 and C1 controls, DEL, line and
 * paragraph separators, bidirectional overrides and isolates, zero-width characters
 * and the BOM. Each is drawn as a visible escape instead.
 */
const invisible = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** oneLine shows every invisible or line-breaking character as an escape (`\n`, `\u202e`), so one line shows one line and what is shown is what was sent. */
export function oneLine(s: string): string {
  return String(s).replace(invisible, (c) => named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** pickText is for Quick Pick labels and descriptions, which draw `$(name)` as an icon: one line, and `$(` split so it shows as typed. */
export function pickText(s: string): string {
  return oneLine(s).replace(/\$\(/g, '$ (');
}

/**
 * plain is for plain-text surfaces that VS Code scans for links: notification and
 * dialog messages render `[label](command:...)`, `(https://...)` and `(file:...)` as
 * links. A space between `]` and `(` leaves the text readable and the pattern broken.
 */
export function plain(s: string): string {
  return oneLine(s).replace(/\]\(/g, '] (');
}

/**
 * The ASCII punctuation CommonMark or GFM could read as syntax (links, autolinks, emails,
 * emphasis, code, HTML, entities, headings, lists, quotes, tables, breaks, icons). Each
 * is backslash-escaped, which CommonMark allows for any ASCII punctuation. `,;?/%'"`
 * mean nothing outside a link (whose brackets are escaped), and stay readable.
 */
const active = /[!#$&()*+\-.:<=>@[\\\]^_`{|}~]/g;

/** escapeText backslash-escapes the active punctuation of one line of text. */
function escapeText(s: string): string {
  return oneLine(s).replace(active, (c) => `\\${c}`);
}

/** edges writes a line's outer spaces as character references: a space at the start could open an indented code block, two at the end a line break. */
function edges(s: string): string {
  return s.replace(/^ /, '&#32;').replace(/ $/, '&#32;');
}

/**
 * mdText makes s literal Markdown prose: the active punctuation escaped (no link,
 * autolink, emphasis, HTML, entity, heading, list, table or icon can start), the outer
 * spaces as character references, line breaks shown as escapes.
 */
export function mdText(s: string): string {
  return edges(escapeText(s));
}

/**
 * mdCode makes s one Markdown code span: its content is literal (CommonMark parses
 * nothing inside one), fenced with more backticks than any run inside, padded where
 * CommonMark would otherwise join a backtick to the fence or strip a space, on one line.
 */
export function mdCode(s: string): string {
  const t = oneLine(s);
  if (t === '') return '` `';
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  // CommonMark strips one space from each end when both ends have one (and not all is space).
  const pad = /^`|`$/.test(t) || (/^ /.test(t) && / $/.test(t) && /[^ ]/.test(t)) ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** mdCell is mdCode for a table cell: a `|` would end the cell even inside a code span, so it is escaped (GFM). */
export function mdCell(s: string): string {
  return mdCode(s).replace(/\|/g, '\\|');
}

/** Prose is text with inline code: plain strings and code spans, never Markdown. */
export type Prose = readonly (string | { code: string })[];

/** prose reads text the server wrote with backtick code spans (a remedy) into Prose. */
export function prose(s: string): Prose {
  return s.split(/(`[^`]+`)/).filter((p) => p !== '').map((p) => (/^`[^`]+`$/.test(p) ? { code: p.slice(1, -1) } : p));
}

/** proseText is Prose as plain text, code spans in backticks: for tests and logs. */
export function proseText(p: Prose): string {
  return p.map((x) => (typeof x === 'string' ? x : `\`${x.code}\``)).join('');
}

/** renderProse draws Prose as Markdown that holds nothing but text and code spans; in a table cell when cell is set. */
export function renderProse(p: Prose, cell = false): string {
  return edges(p.map((x) => (typeof x === 'string' ? escapeText(x) : cell ? mdCell(x.code) : mdCode(x.code))).join(''));
}

/** The trust a MarkdownString gets: none, or exactly the commands of the extension's own links in it. */
export type Trust = false | { enabledCommands: readonly string[] };

/** trustedCommands is the trust for Markdown that holds links to these commands of ours, and nothing else trusted. */
export function trustedCommands(commands: readonly string[]): Trust {
  return commands.length ? { enabledCommands: [...commands] } : false;
}

// HTML (webviews: the approval prompt, a decision's page, the campaign report). Every
// text is written through htmlText (one line) or htmlBlock (a block that keeps its line
// breaks), so that it is characters, never an element, an attribute, an entity or a
// link. The pages are built by html.ts, under a Content Security Policy that allows no
// script and no load from anywhere.

const htmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => htmlEntities[c]);
}

/** htmlText is one line of text in HTML (an element's content or a quoted attribute): invisible characters as escapes, markup characters as references. */
export function htmlText(s: string): string {
  return escapeHtml(oneLine(s));
}

/** htmlBlock is text for a `<pre>`: its line breaks kept (a command's heredoc stays readable), every other invisible character shown as an escape, markup characters as references. */
export function htmlBlock(s: string): string {
  return String(s)
    .split('\n')
    .map((line) => escapeHtml(oneLine(line)))
    .join('\n');
}

/** htmlProse draws Prose (the server's remedy) as text and `<code>` elements, nothing else. */
export function htmlProse(p: Prose): string {
  return p.map((x) => (typeof x === 'string' ? htmlText(x) : `<code>${htmlText(x.code)}</code>`)).join('');
}

/** commandHref is a link to one of the extension's own commands, with arguments the extension made (never text from elsewhere). */
export function commandHref(command: string, args: readonly (string | number)[]): string {
  if (!/^admit\.[A-Za-z]+$/.test(command)) throw new Error(`commandHref: ${command} is not one of admit's commands`);
  return escapeHtml(`command:${command}?${encodeURIComponent(JSON.stringify(args))}`);
}
