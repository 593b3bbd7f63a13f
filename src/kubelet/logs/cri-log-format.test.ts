import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CriLogJoiner, fixedNanoTimestamp, formatLogMessage, parseCriLog, parseCriLogLine } from './cri-log-format.js';

test('a CRI log line is parsed into time, stream, tag and text', () => {
  const l = parseCriLogLine('2024-01-02T03:04:05.123456789Z stderr F oh no: a b ')!;
  assert.equal(l.timestamp, '2024-01-02T03:04:05.123456789Z');
  assert.equal(l.time.toISOString(), '2024-01-02T03:04:05.123Z');
  assert.equal(l.stream, 'stderr');
  assert.equal(l.partial, false);
  assert.equal(l.text, 'oh no: a b ');
  // an empty line has no text after its tag
  assert.equal(parseCriLogLine('2024-01-02T03:04:05Z stdout F')!.text, '');
  assert.equal(parseCriLogLine('2024-01-02T03:04:05Z stdout P part')!.partial, true);
});

test('malformed lines are rejected', () => {
  for (const bad of ['', 'hello world', '2024-01-02T03:04:05Z stdin F x', '2024-01-02T03:04:05Z stdout X x', 'notatime stdout F x', '2024-01-02T03:04:05Z stdout Fx']) {
    assert.equal(parseCriLogLine(bad), undefined, bad);
  }
});

test('partial fragments are joined per stream, stamped with the first fragment\'s time', () => {
  const text = [
    '2024-01-02T03:04:05.000000001Z stdout P hel',
    '2024-01-02T03:04:05.000000002Z stderr F an error',
    '2024-01-02T03:04:05.000000003Z stdout P lo ',
    '2024-01-02T03:04:05.000000004Z stdout F world',
    'garbage',
    '2024-01-02T03:04:06Z stdout F next',
    '',
  ].join('\n');
  const msgs = parseCriLog(text);
  assert.deepEqual(msgs.map((m) => [m.stream, m.text, m.timestamp]), [
    ['stderr', 'an error', '2024-01-02T03:04:05.000000002Z'],
    ['stdout', 'hello world', '2024-01-02T03:04:05.000000001Z'],
    ['stdout', 'next', '2024-01-02T03:04:06Z'],
  ]);
  assert.equal(formatLogMessage(msgs[1]!, false), 'hello world\n');
  assert.equal(formatLogMessage(msgs[1]!, true), '2024-01-02T03:04:05.000000001Z hello world\n');
});

test('a fragment whose end never came is flushed without a newline', () => {
  const joiner = new CriLogJoiner();
  assert.deepEqual(parseCriLog('2024-01-02T03:04:05Z stdout P cut of', joiner), []);
  // fed across reads, the rest still joins
  assert.deepEqual(parseCriLog('2024-01-02T03:04:06Z stdout P f\n', joiner), []);
  const [rest] = joiner.flush();
  assert.equal(rest!.text, 'cut off');
  assert.equal(formatLogMessage(rest!, false), 'cut off');
  assert.deepEqual(joiner.flush(), []);
});

test('--timestamps prints nine fractional digits, as upstream\'s RFC3339NanoFixed', () => {
  assert.equal(fixedNanoTimestamp('2024-01-02T03:04:05.95002008Z'), '2024-01-02T03:04:05.950020080Z');
  assert.equal(fixedNanoTimestamp('2024-01-02T03:04:05Z'), '2024-01-02T03:04:05.000000000Z');
  assert.equal(fixedNanoTimestamp('2024-01-02T03:04:05.123456789+02:00'), '2024-01-02T03:04:05.123456789+02:00');
  assert.equal(fixedNanoTimestamp('garbled'), 'garbled');
  const [msg] = parseCriLog('2024-01-02T03:04:05.5Z stdout F x\n');
  assert.equal(formatLogMessage(msg!, true), '2024-01-02T03:04:05.500000000Z x\n');
});
