import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { holdRefusedConnection } from './concurrency-limit.js';

class FakeSocket extends EventEmitter {
  destroyed = false;
  paused = false;
  pause() {
    this.paused = true;
    return this;
  }
  resume() {
    this.paused = false;
    this.emit('resumed');
    return this;
  }
}

describe('holdRefusedConnection', () => {
  it('stops reading a refused connection once its answer is out, and reads it again after Retry-After', async () => {
    const socket = new FakeSocket();
    const res = Object.assign(new EventEmitter(), { socket }) as unknown as ServerResponse;
    holdRefusedConnection(res, 20);
    assert.equal(socket.paused, false, 'the answer is not out yet');
    res.emit('finish');
    assert.equal(socket.paused, true);
    // the hold's timer does not keep a process alive: this test's does, with a deadline
    const deadline = setTimeout(() => socket.emit('error', new Error('never read again')), 10_000);
    try {
      await once(socket, 'resumed');
    } finally {
      clearTimeout(deadline);
    }
    assert.equal(socket.paused, false);
    assert.equal(socket.listenerCount('close'), 0, 'no listener left behind per refusal');
  });

  it('leaves a connection that closed meanwhile alone', async () => {
    const socket = new FakeSocket();
    const res = Object.assign(new EventEmitter(), { socket }) as unknown as ServerResponse;
    holdRefusedConnection(res, 20);
    res.emit('finish');
    socket.destroyed = true;
    socket.emit('close');
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(socket.paused, true);
  });
});
