import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { drained } from './drain.js';

function slowStream(): { stream: Writable; finish: () => void } {
  const callbacks: (() => void)[] = [];
  const stream = new Writable({ highWaterMark: 4, write: (_chunk, _enc, cb) => callbacks.push(cb) });
  return { stream, finish: () => callbacks.splice(0).forEach((cb) => cb()) };
}

test('drained resolves on drain and leaves no listener on the signal or the stream', async () => {
  const { stream, finish } = slowStream();
  const signal = new AbortController().signal;
  for (let i = 0; i < 100; i++) {
    assert.equal(stream.write('12345'), false, 'over the high-water mark');
    const wait = drained(stream, signal);
    finish();
    await wait;
  }
  assert.equal(getEventListeners(signal, 'abort').length, 0);
  assert.equal(stream.listenerCount('drain'), 0);
});

test('drained resolves when the signal aborts first', async () => {
  const { stream } = slowStream();
  const ac = new AbortController();
  stream.write('12345');
  const wait = drained(stream, ac.signal);
  ac.abort();
  await wait;
  assert.equal(stream.listenerCount('drain'), 0);
  await drained(stream, ac.signal);
});
