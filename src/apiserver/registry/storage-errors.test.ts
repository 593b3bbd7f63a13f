import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompactedError, FutureRevisionError, StorageError, UnavailableError, WatchClosedError } from '../../storage/errors.js';
import { isWatchEnd, storageErrorToApiError } from './storage-errors.js';

describe('storageErrorToApiError', () => {
  it('compacted is 410 Expired, worded as upstream for lists, continue tokens and watches', () => {
    const err = new CompactedError(5, 10);
    const list = storageErrorToApiError(err, { verb: 'list', continuing: false });
    assert.deepEqual([list.code, list.reason, list.message], [410, 'Expired', 'The resourceVersion for the provided list is too old.']);
    assert.match(storageErrorToApiError(err, { verb: 'list', continuing: true }).message, /^The provided continue parameter is too old to display a consistent list result/);
    const watch = storageErrorToApiError(err, { verb: 'watch', resourceVersion: 5 });
    assert.deepEqual([watch.code, watch.reason, watch.message], [410, 'Expired', 'too old resource version: 5 (10)']);
  });

  it('a revision not reached yet is a 504 to retry', () => {
    const err = storageErrorToApiError(new FutureRevisionError(99, 7), { verb: 'other' });
    assert.deepEqual([err.code, err.reason, err.message], [504, 'Timeout', 'Too large resource version: 99, current: 7']);
    assert.equal(err.details?.causes?.[0]?.reason, 'ResourceVersionTooLarge');
    assert.equal(err.details?.retryAfterSeconds, 1);
  });

  it('unavailable storage is a 503 to retry; other storage failures are 500', () => {
    const err = storageErrorToApiError(new UnavailableError('etcd: connection refused'), { verb: 'other' });
    assert.deepEqual([err.code, err.reason], [503, 'ServiceUnavailable']);
    assert.equal(err.details?.retryAfterSeconds, 1);
    assert.equal(storageErrorToApiError(new StorageError('disk on fire'), { verb: 'other' }).code, 500);
  });

  it('a watch closed by storage is the end of the stream, not an error', () => {
    assert.equal(isWatchEnd(new WatchClosedError('fell behind')), true);
    assert.equal(isWatchEnd(new UnavailableError('down')), false);
  });
});
