import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outcomeOf } from './writer.js';

test('a write refused for lack of space is refused, not acknowledged and not possibly landed', () => {
  assert.equal(outcomeOf(201), 'acknowledged');
  assert.equal(outcomeOf(409), 'refused');
  assert.equal(outcomeOf(500, 'no space left on the device of /x/state.db: writes are refused until space is freed'), 'refused');
  assert.equal(outcomeOf(500, 'etcdserver: mvcc: database space exceeded'), 'refused');
  // any other 5xx, a timeout or a reset may have landed
  assert.equal(outcomeOf(500, 'etcdserver: request timed out'), 'uncertain');
  assert.equal(outcomeOf(503), 'uncertain');
  assert.equal(outcomeOf(0), 'uncertain');
});
