import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AttachHub, onTerminal } from './process-streams.js';

test('AttachHub: a tty attach applies the size the client sent with the connection, then later resizes', () => {
  const sizes: string[] = [];
  const hub = new AttachHub(undefined, false, (w, h) => sizes.push(`${w}x${h}`));
  const session = hub.attach({ stdin: false, stdout: true, stderr: false, tty: true, initialSize: { width: 101, height: 31 } });
  session.resize(120, 40);
  assert.deepEqual(sizes, ['101x31', '120x40']);
  // a session without a terminal never resizes the container's
  hub.attach({ stdin: false, stdout: true, stderr: true, tty: false, initialSize: { width: 1, height: 1 } }).resize(2, 2);
  assert.deepEqual(sizes, ['101x31', '120x40']);
});

test('AttachHub: every session ends when the container exits', async () => {
  const hub = new AttachHub(undefined, false);
  const session = hub.attach({ stdin: false, stdout: true, stderr: true, tty: false });
  hub.end(3);
  assert.deepEqual(await session.done, { exitCode: 3 });
});

test('onTerminal: script owns the pty and passes the exit status back', () => {
  assert.deepEqual(onTerminal(['sh', '-c', 'echo "a b"']), ['script', '-q', '-e', '-f', '-c', `'sh' '-c' 'echo "a b"'`, '/dev/null']);
});
