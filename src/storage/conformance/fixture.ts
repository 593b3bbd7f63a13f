import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { KeyValue, Storage } from '../storage.js';

/** Opens a backend for one suite run; `close` releases it. */
export type OpenStorage = () => Promise<{ storage: Storage; close(): Promise<void> }>;

/** Holds the storage under test and hands out fresh key prefixes. */
export class ConformanceFixture {
  private opened: { storage: Storage; close(): Promise<void> } | undefined;

  constructor(private readonly open: OpenStorage) {}

  async setUp(): Promise<void> {
    this.opened = await this.open();
  }

  async tearDown(): Promise<void> {
    await this.opened?.close();
    this.opened = undefined;
  }

  get storage(): Storage {
    assert.ok(this.opened, 'storage is not open');
    return this.opened.storage;
  }

  /** A prefix no other test (or test run) uses, ending in '/'. */
  prefix(): string {
    return `/conformance/${randomBytes(6).toString('hex')}/`;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

export function text(value: Uint8Array): string {
  return decoder.decode(value);
}

/** The comparable content of a kv (values as text). */
export function plain(kv: KeyValue | undefined): { key: string; value: string; createRevision: number; modRevision: number } | undefined {
  return kv && { key: kv.key, value: text(kv.value), createRevision: kv.createRevision, modRevision: kv.modRevision };
}

/** Pulls exactly `count` items, failing when the iteration ends or the deadline passes first. */
export async function take<T>(iterator: AsyncIterator<T>, count: number, timeoutMs = 5000): Promise<T[]> {
  const items: T[] = [];
  const deadline = Date.now() + timeoutMs;
  while (items.length < count) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
    });
    const result = await Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
    if (result === 'timeout') assert.fail(`timed out after ${items.length} of ${count} items`);
    if (result.done) assert.fail(`iteration ended after ${items.length} of ${count} items`);
    items.push(result.value);
  }
  return items;
}

/** Resolves with `promise`, or fails the test when it does not settle in time. */
export async function within<T>(promise: Promise<T>, timeoutMs = 5000, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new assert.AssertionError({ message: `${what} did not finish within ${timeoutMs} ms` })), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Asserts that a guarded write succeeded and narrows the result. */
export function succeeded<R extends { succeeded: boolean }>(result: R): Extract<R, { succeeded: true }> {
  assert.equal(result.succeeded, true, 'expected the guarded write to succeed');
  return result as Extract<R, { succeeded: true }>;
}

/** Asserts that a guarded write failed its guard and narrows the result. */
export function failed<R extends { succeeded: boolean }>(result: R): Extract<R, { succeeded: false }> {
  assert.equal(result.succeeded, false, 'expected the guarded write to fail');
  return result as Extract<R, { succeeded: false }>;
}
