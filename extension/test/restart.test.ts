import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RestartPolicy } from '../src/restart';

test('restarts up to 4 times in 3 minutes, then gives up', () => {
  let now = 0;
  const p = new RestartPolicy(4, 180_000, () => now);
  for (let i = 0; i < 4; i++) {
    now += 1000;
    assert.equal(p.onCrash(), true, `crash ${i + 1}`);
  }
  now += 1000;
  assert.equal(p.onCrash(), false, 'the fifth crash in the window');
  assert.match(p.gaveUpMessage(), /5 times in 3 minutes/);
});

test('crashes older than the window are forgotten', () => {
  let now = 0;
  const p = new RestartPolicy(4, 180_000, () => now);
  for (let i = 0; i < 4; i++) assert.equal(p.onCrash(), true);
  now += 180_000;
  assert.equal(p.onCrash(), true, 'the old four left the window');
  assert.equal(p.recent, 1);
});

test('reset after a manual restart', () => {
  const now = 0;
  const p = new RestartPolicy(1, 1000, () => now);
  assert.equal(p.onCrash(), true);
  assert.equal(p.onCrash(), false);
  p.reset();
  assert.equal(p.onCrash(), true);
});

test('restarts back off: none first, then growing, capped', () => {
  const now = 0;
  const p = new RestartPolicy(10, 180_000, () => now);
  const delays: number[] = [];
  for (let i = 0; i < 7; i++) {
    p.onCrash();
    delays.push(p.delayMs());
  }
  assert.deepEqual(delays, [0, 250, 500, 1000, 2000, 4000, 4000]);
});
