import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { test } from 'node:test';
import { Deadline, withRequestTimeout } from './request-timeout.js';

const never = (what: string) => (err?: unknown) => assert.fail(`unexpected ${what}: ${String(err)}`);

test('a request served in time: no timeout answer, its deadline never aborts', async () => {
  let seen: Deadline | undefined;
  let timeouts = 0;
  await withRequestTimeout(60_000, async (d) => void (seen = d), () => timeouts++, never('late error'));
  assert.equal(timeouts, 0);
  assert.equal(seen!.expired, false);
  assert.equal(seen!.signal.aborted, false);
});

test('a failure before the deadline is the request failure', async () => {
  await assert.rejects(
    withRequestTimeout(60_000, async () => Promise.reject(new Error('boom')), never('timeout'), never('late error')),
    /boom/,
  );
});

test('past the deadline: the signal read before aborts, the timeout answers, a late failure goes to onLateError', async () => {
  let timeouts = 0;
  const late: unknown[] = [];
  let seen: Deadline | undefined;
  await withRequestTimeout(
    5,
    async (d) => {
      seen = d;
      // a handler that listens: its signal aborts when the deadline passes
      await once(d.signal, 'abort');
      throw new Error('late');
    },
    () => timeouts++,
    (err) => late.push(err),
  );
  assert.equal(timeouts, 1);
  assert.equal(seen!.expired, true);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(late.map((e) => (e as Error).message), ['late']);
});

test("a signal first read after the deadline passed is already aborted", async () => {
  let seen: Deadline | undefined;
  let release!: () => void;
  const served = new Promise<void>((r) => (release = r));
  await withRequestTimeout(
    5,
    (d) => {
      seen = d;
      return served;
    },
    () => {},
    never('late error'),
  );
  assert.equal(seen!.signal.aborted, true);
  release();
});

test('no timeout (0, long-running requests): served as it is, with a deadline that never passes', async () => {
  let seen: Deadline | undefined;
  await withRequestTimeout(0, async (d) => void (seen = d), never('timeout'), never('late error'));
  assert.equal(seen!.expired, false);
  assert.equal(seen!.signal.aborted, false);
});
