import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isChangedSinceShown, reviewButtons, reviewDialog, reviewTitle, trustOf } from '../src/policyTrust';
import type { PolicyReview } from '../src/protocol';
import { assertPlain, hostile } from './hostile';

const review = (over: Partial<PolicyReview> = {}): PolicyReview => ({
  path: '/w/a/.admit/policy.json', sum: 'a'.repeat(64), trust: 'untrusted',
  widens: ['grants the tool "deploy", which the built-in policy does not'], content: '{"allow":["deploy"]}\n', builtIn: '{}\n', ...over,
});

test('the review asks with Keep untrusted first (the default button), never Trust', () => {
  const d = reviewDialog(review());
  assert.deepEqual(d.buttons, [reviewButtons.keep, reviewButtons.trust]);
  assert.equal(d.message, 'admit: trust the workspace policy file /w/a/.admit/policy.json?');
  assert.match(d.detail, /• grants the tool "deploy", which the built-in policy does not/);
  assert.match(d.detail, /Trust records this exact content \(sha256 aaaaaaaaaaaa…\)/);
  const t = reviewDialog(review({ trust: 'trusted' }));
  assert.deepEqual(t.buttons, [reviewButtons.keepTrusted, reviewButtons.distrust], 'a trusted file: keep is the default');
});

test('the review\'s words are plain text whatever the repository wrote', () => {
  for (const h of hostile) {
    const d = reviewDialog(review({ path: `/w/${h}/.admit/policy.json`, widens: [h, `grants the tool ${JSON.stringify(h)}`] }));
    assertPlain(d.message, [], `message with ${JSON.stringify(h)}`);
    for (const line of d.detail.split('\n')) assertPlain(line, [], `detail with ${JSON.stringify(h)}`);
    assertPlain(reviewTitle(review({ path: `/w/${h}/.admit/policy.json` })), [], `title with ${JSON.stringify(h)}`);
    for (const b of d.buttons) assert.ok(Object.values(reviewButtons).includes(b as never));
  }
});

test('the diff title names the file and its trust', () => {
  assert.equal(reviewTitle(review()), 'admit: built-in policy ↔ a/.admit/policy.json (untrusted)');
});

test('a trustPolicy refusal for a changed file is told apart', () => {
  assert.ok(isChangedSinceShown('sum: the file /w/a/.admit/policy.json changed since it was shown (sum 0123, shown 4567): review it again'));
  assert.ok(!isChangedSinceShown('path: "/x" is not the policy file in force'));
});

test('trustOf reads only the protocol\'s values', () => {
  assert.equal(trustOf({ policyTrust: 'untrusted' }), 'untrusted');
  assert.equal(trustOf({ policyTrust: 'wide open' as never, policy: '/w/.admit/policy.json' }), undefined);
  assert.equal(trustOf({ policy: 'built-in' }), 'built-in');
});
