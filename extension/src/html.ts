// The frame of every page the extension draws in a webview (the approval prompt, a
// decision's page, the campaign report). Pure: HTML strings in and out.
//
// A page holds text from agents and repositories, so it runs nothing of theirs: no
// script but the extension's own one, allowed by the nonce (the approval prompt's, which
// only swaps in the next question's body, already escaped), else none at all
// (script-src 'none'); nothing loaded from anywhere (default-src 'none'); its one style
// element allowed by a nonce. Its only links are the extension's own commands
// (commandHref), which the panel enables by name (enableCommandUris), so a link the
// text might spell could not run anything even if it became an element.
import { htmlText } from './text';

/** The policy of every page: no load, no form, no frame; the page's own style, and its own script when it has one, by nonce; else no script. */
export function csp(nonce: string, script = false): string {
  if (!/^[A-Za-z0-9+/=]{16,}$/.test(nonce)) throw new Error('csp: the nonce must be 16 or more base64 characters');
  return [
    "default-src 'none'",
    script ? `script-src 'nonce-${nonce}'` : "script-src 'none'",
    `style-src 'nonce-${nonce}'`,
    "img-src 'none'",
    "font-src 'none'",
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The page style: VS Code's theme variables, so a page looks like the editor around it. */
const style = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 20px 20px; line-height: 1.45; }
h1 { font-size: 1.35em; margin: 0.8em 0 0.4em; }
h2 { font-size: 1.1em; margin: 1.2em 0 0.4em; border-bottom: 1px solid var(--vscode-panel-border, rgba(128,128,128,.35)); padding-bottom: 2px; }
pre, code { font-family: var(--vscode-editor-font-family, monospace); font-size: var(--vscode-editor-font-size, 0.95em); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--vscode-textCodeBlock-background, rgba(128,128,128,.12)); padding: 8px 10px; border-radius: 3px; margin: 4px 0 10px; }
code { overflow-wrap: anywhere; background: var(--vscode-textCodeBlock-background, rgba(128,128,128,.12)); padding: 0 3px; border-radius: 3px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 6px 0 10px; }
dt { color: var(--vscode-descriptionForeground); }
dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { text-align: left; vertical-align: top; padding: 3px 10px 3px 0; border-bottom: 1px solid var(--vscode-panel-border, rgba(128,128,128,.25)); }
td.n { text-align: right; }
.muted { color: var(--vscode-descriptionForeground); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 600; }
.allowed, .approved { background: var(--vscode-testing-iconPassed, #2e7d32); color: #fff; }
.refused, .denied { background: var(--vscode-errorForeground, #c62828); color: #fff; }
.would-deny, .unanswered { background: var(--vscode-editorWarning-foreground, #b26a00); color: #fff; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 14px 0; }
a.button { display: inline-block; padding: 5px 14px; border-radius: 2px; text-decoration: none; background: var(--vscode-button-secondaryBackground, #555); color: var(--vscode-button-secondaryForeground, #fff); }
a.button:hover { background: var(--vscode-button-secondaryHoverBackground, #666); }
a.button.deny { background: var(--vscode-button-background, #0e639c); color: var(--vscode-button-foreground, #fff); }
a.button:focus { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
ins { text-decoration: none; background: var(--vscode-diffEditor-insertedTextBackground, rgba(46,125,50,.25)); }
del { text-decoration: none; background: var(--vscode-diffEditor-removedTextBackground, rgba(198,40,40,.25)); }
.warn { border-left: 3px solid var(--vscode-errorForeground, #c62828); padding: 4px 10px; }
.note { border-left: 3px solid var(--vscode-editorWarning-foreground, #b26a00); padding: 4px 10px; margin: 10px 0; }
`;

/**
 * page is a whole HTML document: title (plain text, escaped here) and body (HTML the
 * caller built with the escapes of text.ts), and the extension's own script when given
 * (a constant of the extension, never text from a call).
 */
export function page(title: string, body: string, nonce: string, script?: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp(nonce, script !== undefined)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${htmlText(title)}</title>`,
    `<style nonce="${nonce}">${style}</style>`,
    '</head>',
    `<body>${body}</body>`,
    script !== undefined ? `<script nonce="${nonce}">${script}</script>` : '',
    '</html>',
  ].join('\n');
}

/** dl is a definition list of the rows whose value is set; keys are the extension's own words, values HTML already escaped. */
export function dl(rows: readonly [string, string | undefined][]): string {
  const shown = rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== '');
  if (!shown.length) return '';
  return `<dl>${shown.map(([k, v]) => `<dt>${htmlText(k)}</dt><dd>${v}</dd>`).join('')}</dl>`;
}
