import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { KubeObject } from '../../api/object.js';
import { sharedCausedWatchLine, sharedWatchEvent } from './watch-encoding.js';

const pod = (): KubeObject => ({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'a', namespace: 'ns', resourceVersion: '7' } });
const CAUSE = ',"cause":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","committed":"2026-11-24T00:00:00.000000Z"}';

test('the caused event line is the plain line with the cause field, built once for every watcher', () => {
  const obj = pod();
  let asked = 0;
  const field = () => (asked++, CAUSE);
  const first = sharedCausedWatchLine('MODIFIED', obj, field);
  const second = sharedCausedWatchLine('MODIFIED', obj, field);
  // the very same bytes for every watcher: encoded once
  assert.equal(second, first);
  assert.equal(asked, 1);
  assert.ok(first.toString().endsWith('}\n'));
  const parsed = JSON.parse(first.toString()) as { type: string; object: KubeObject; cause: { traceparent: string } };
  assert.equal(parsed.type, 'MODIFIED');
  assert.deepEqual(parsed.object, obj);
  assert.match(parsed.cause.traceparent, /^00-0af7/);
  // another type of the same object is its own line
  assert.equal(JSON.parse(sharedCausedWatchLine('DELETED', obj, field).toString()).type, 'DELETED');
});

test('an event whose cause is not known yet goes out plain and is asked again for the next watcher', () => {
  const obj = pod();
  let asked = 0;
  assert.equal(sharedCausedWatchLine('ADDED', obj, () => (asked++, '')), sharedWatchEvent({ kind: 'json' }, 'ADDED', obj));
  assert.ok(JSON.parse(sharedCausedWatchLine('ADDED', obj, () => (asked++, CAUSE)).toString()).cause);
  assert.equal(asked, 2);
});
