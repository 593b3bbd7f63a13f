import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Channel, decodeChannel, encodeChannel, exitStatus, parseTerminalSize, V4, V5 } from './stream-channel.js';

test('channel messages round-trip; the close signal exists only in v5', () => {
  assert.deepEqual(decodeChannel(encodeChannel(Channel.Stdout, 'hi'), V5), { channel: 1, data: Buffer.from('hi') });
  assert.deepEqual(decodeChannel(Buffer.from([255, 0]), V5), { close: 0 });
  assert.deepEqual(decodeChannel(Buffer.from([255, 0]), V4), { channel: 255, data: Buffer.from([0]) });
  assert.equal(decodeChannel(Buffer.alloc(0), V5), undefined);
});

test('exit statuses are what kubectl decodes', () => {
  assert.deepEqual(exitStatus(0), { metadata: {}, status: 'Success' });
  const failed = exitStatus(3, ['sh', '-c', 'exit 3']) as { status: string; reason: string; details: { causes: { reason: string; message: string }[] } };
  assert.equal(failed.status, 'Failure');
  assert.equal(failed.reason, 'NonZeroExitCode');
  assert.deepEqual(failed.details.causes, [{ reason: 'ExitCode', message: '3' }]);
});

test('terminal sizes use the Go field names; junk is ignored', () => {
  assert.deepEqual(parseTerminalSize(Buffer.from('{"Width":80,"Height":24}')), { width: 80, height: 24 });
  assert.equal(parseTerminalSize(Buffer.from('{"width":80}')), undefined);
  assert.equal(parseTerminalSize(Buffer.from('nope')), undefined);
});
