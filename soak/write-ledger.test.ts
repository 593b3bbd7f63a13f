import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANY, DELETED, WriteLedger } from './write-ledger.js';

const sig = (o: Record<string, unknown>) => `seq=${(o.data as { seq: string }).seq}`;
const cm = (seq: number, rv: string) => ({ metadata: { name: 'a', resourceVersion: rv }, data: { seq: String(seq) } });

test('an object read back as its last acknowledged write left it passes; anything else is a lost write', () => {
  const ledger = new WriteLedger();
  ledger.record('/a', 'acknowledged', { signatureOf: sig, expected: { exists: true, signature: 'seq=1', resourceVersion: '5' }, collection: '/cms', name: 'a' });
  assert.equal(ledger.check('/a', cm(1, '5')), undefined);
  assert.match(ledger.check('/a', cm(1, '6'))!.message, /acknowledged seq=1 at resourceVersion 5, read back seq=1 at 6/);
  assert.match(ledger.check('/a', undefined)!.message, /not found/);
  assert.deepEqual(ledger.acks.get('/cms'), [{ name: 'a', rv: 5 }]);
  assert.equal(ledger.acknowledged, 1);
});

test('a write whose outcome is unknown may have landed; an acknowledged write after it rules that out', () => {
  const ledger = new WriteLedger();
  ledger.record('/a', 'acknowledged', { signatureOf: sig, expected: { exists: true, signature: 'seq=1', resourceVersion: '5' } });
  ledger.record('/a', 'uncertain', { signatureOf: sig, attempted: 'seq=2' });
  assert.equal(ledger.check('/a', cm(2, '7')), undefined);
  assert.equal(ledger.check('/a', cm(1, '5')), undefined);
  assert.ok(ledger.check('/a', cm(3, '9')));
  // a read does not clear what may still land…
  ledger.settle('/a', { exists: true, signature: 'seq=1', resourceVersion: '5' }, sig, { fromRead: true });
  assert.equal(ledger.check('/a', cm(2, '7')), undefined);
  // …an acknowledged write (with its precondition) does
  ledger.record('/a', 'acknowledged', { signatureOf: sig, expected: { exists: false } });
  assert.match(ledger.check('/a', cm(2, '7'))!.message, /acknowledged as deleted but found/);
  assert.equal(ledger.check('/a', undefined), undefined);
});

test('an uncertain delete or an unforeseeable create excuses absence or any state', () => {
  const ledger = new WriteLedger();
  ledger.record('/a', 'acknowledged', { signatureOf: sig, expected: { exists: true, signature: 'seq=1' } });
  ledger.record('/a', 'uncertain', { signatureOf: sig, attempted: DELETED });
  assert.equal(ledger.check('/a', undefined), undefined);
  ledger.record('/b', 'uncertain', { signatureOf: sig, attempted: ANY });
  assert.equal(ledger.check('/b', cm(9, '1')), undefined);
  assert.equal(ledger.refused + ledger.uncertain, 2);
});
