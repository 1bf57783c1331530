// The workspace policy file's trust, as the editor shows it (docs/trust.md): the status
// bar's word and tooltip, the notice when a file becomes untrusted, and the review's
// dialog. Pure. The file is the repository's text and the server's words about it
// quote it (a tool name, a program), so every such text is escaped for its surface.
import type { AdmitState, PolicyReview, PolicyTrust } from './protocol';
import { mdCode, mdText, plain } from './text';

const trusts: readonly PolicyTrust[] = ['built-in', 'tightening', 'trusted', 'untrusted'];

/** trustOf is the state's policy trust when it is one the protocol defines. */
export function trustOf(st: Pick<AdmitState, 'policyTrust' | 'policy'>): PolicyTrust | undefined {
  const t = st.policyTrust;
  if (typeof t === 'string' && (trusts as readonly string[]).includes(t)) return t as PolicyTrust;
  return st.policy === 'built-in' ? 'built-in' : undefined;
}

/** widensOf is the list of what an untrusted file would widen, strings only. */
export function widensOf(st: Pick<AdmitState, 'policyWidens'>): string[] {
  return Array.isArray(st.policyWidens) ? st.policyWidens.filter((w): w is string => typeof w === 'string') : [];
}

/** trustStatus is the status bar's part for the policy file: only fixed words. */
export function trustStatus(st: AdmitState): string | undefined {
  switch (trustOf(st)) {
    case 'untrusted':
      return '$(workspace-untrusted) policy untrusted';
    case 'trusted':
      return '$(workspace-trusted) policy trusted';
    default:
      return undefined; // built-in, or a file that only tightens: nothing to decide
  }
}

/** At most this many widenings are listed in a tooltip or a notice. */
const maxWidens = 10;

/** trustTooltip is the tooltip's paragraph about the policy file, with a link to the review (the only command it trusts). */
export function trustTooltip(st: AdmitState): { markdown: string; commands: string[] } | undefined {
  const t = trustOf(st);
  const file = typeof st.policy === 'string' && st.policy && st.policy !== 'built-in' ? ` ${mdCode(st.policy)}` : '';
  switch (t) {
    case 'untrusted': {
      const w = widensOf(st);
      const list = w.slice(0, maxWidens).map((x) => `- ${mdText(x)}`);
      if (w.length > maxWidens) list.push(`- and ${w.length - maxWidens} more`);
      return {
        markdown: [
          `**The workspace policy file${file} is not trusted**: it only tightens the gate until you review and trust it. Trusting it would:`,
          '',
          ...list,
          '',
          '[Review the policy file](command:admit.reviewPolicy)',
        ].join('\n'),
        commands: ['admit.reviewPolicy'],
      };
    }
    case 'trusted':
      return {
        markdown: `**The workspace policy file${file} is trusted** by you, in this exact version; any change to it makes it untrusted again. [Review or distrust it](command:admit.reviewPolicy)`,
        commands: ['admit.reviewPolicy'],
      };
    case 'tightening':
      return { markdown: `The workspace policy file${file} only tightens the built-in policy, so it takes effect without your trust.`, commands: [] };
    case 'built-in':
      return { markdown: 'The built-in policy is in force (no `.admit/policy.json` at a workspace root).', commands: [] };
    default:
      return undefined;
  }
}

/** noticeKey names an untrusted state for the notice: a new file, or a change of what it widens, is told again. */
export function noticeKey(st: AdmitState): string | undefined {
  return trustOf(st) === 'untrusted' ? JSON.stringify([st.policy ?? '', widensOf(st)]) : undefined;
}

/** untrustedNotice is the notification's text when the policy file becomes untrusted. Plain text, one line. */
export function untrustedNotice(st: AdmitState): string {
  const w = widensOf(st);
  const file = typeof st.policy === 'string' && st.policy !== 'built-in' ? ` ${st.policy}` : '';
  const shown = w.slice(0, 3).join('; ') + (w.length > 3 ? `; and ${w.length - 3} more` : '');
  return plain(`admit: the workspace policy file${file} is new or changed and not trusted, so it only tightens the gate. Trusting it would: ${shown || 'widen the gate'}.`);
}

/** The review dialog's buttons; "Keep untrusted" is first, so it is the default (Enter). */
export const reviewButtons = { keep: 'Keep untrusted', trust: 'Trust this exact file', keepTrusted: 'Keep trusted', distrust: 'Distrust' } as const;

/** reviewDialog is the modal question after the diff is shown: plain text, never Trust by default. */
export function reviewDialog(r: PolicyReview): { message: string; detail: string; buttons: string[] } {
  const w = (Array.isArray(r.widens) ? r.widens : []).filter((x): x is string => typeof x === 'string');
  const sum = typeof r.sum === 'string' ? r.sum.slice(0, 12) : '';
  if (r.trust === 'trusted') {
    return {
      message: plain(`admit: you trust the workspace policy file ${r.path}.`),
      detail: ['In this exact version' + (sum ? ` (sha256 ${sum}…)` : '') + '. Trusting it lets it:', ...w.map((x) => `• ${plain(x)}`), '', 'Distrust it to have it only tighten again.'].join('\n'),
      buttons: [reviewButtons.keepTrusted, reviewButtons.distrust],
    };
  }
  return {
    message: plain(`admit: trust the workspace policy file ${r.path}?`),
    detail: [
      'It comes with the repository. Until you trust it, it only tightens the gate. Trusting it would:',
      ...w.map((x) => `• ${plain(x)}`),
      '',
      `The diff against the built-in policy is open beside. Trust records this exact content${sum ? ` (sha256 ${sum}…)` : ''}, outside the workspace; any change to the file (a commit, a pull, an agent's edit) makes it untrusted again.`,
    ].join('\n'),
    buttons: [reviewButtons.keep, reviewButtons.trust],
  };
}

/** reviewTitle is the diff editor's title: plain text (a title is never parsed). */
export function reviewTitle(r: PolicyReview): string {
  const name = r.path ? r.path.split('/').slice(-3).join('/') : 'policy';
  return plain(`admit: built-in policy ↔ ${name} (${r.trust})`);
}

/** isChangedSinceShown says whether an admit/trustPolicy error means the file changed after the review: show it again. */
export function isChangedSinceShown(message: string): boolean {
  return /changed since it was shown/.test(message);
}
