import type { ApiClient } from './api-client.js';
import { ANY, DELETED, type WriteLedger, type WriteOutcome } from './write-ledger.js';

export type Json = Record<string, unknown>;
export type SignatureOf = (obj: Json) => string;

/** The storage's NOSPACE refusal (etcd's wording, or skiff's SQLite disk-full message), as the API server words it. */
export const NO_SPACE = /database space exceeded|no space left on the device/;

/**
 * 2xx: acknowledged; a definite refusal (conflict, not found, invalid,
 * throttled, or a 5xx `Status` saying the storage has no space: the write
 * was not committed, and the ledger then flags it if it shows up anyway):
 * refused; anything else may have landed.
 */
export function outcomeOf(status: number, message = ''): WriteOutcome {
  if (status >= 200 && status < 300) return 'acknowledged';
  if ([400, 403, 404, 409, 410, 422, 429].includes(status)) return 'refused';
  if (status >= 500 && NO_SPACE.test(message)) return 'refused';
  return 'uncertain';
}

const messageOf = (json: unknown) => String((json as { message?: unknown } | undefined)?.message ?? '');

/** Wraps a signature function: objects being deleted all look alike. */
export function signatureWith(fn: SignatureOf): SignatureOf {
  return (obj) => ((obj.metadata as { deletionTimestamp?: string } | undefined)?.deletionTimestamp ? DELETED : fn(obj));
}

/**
 * Writes through the API and records the outcome in the ledger. Every
 * write carries a precondition (resourceVersion in the body, or a delete
 * precondition), so a write whose answer was lost can never land over a
 * later acknowledged one.
 */
export class Writer {
  constructor(
    private readonly client: ApiClient,
    readonly ledger: WriteLedger,
  ) {}

  /** Reads an object and settles its ledger record from what was read; undefined: not found; throws on other answers. */
  async read(path: string, signatureOf: SignatureOf, opts: { exactVersion?: boolean } = {}): Promise<Json | undefined> {
    const answer = await this.client.request('GET', path);
    if (answer.status === 404) {
      this.ledger.settle(path, { exists: false }, signatureOf, { fromRead: true });
      return undefined;
    }
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
    const rv = (answer.json.metadata as { resourceVersion: string }).resourceVersion;
    this.ledger.settle(path, { exists: true, signature: signatureOf(answer.json), resourceVersion: opts.exactVersion ? rv : undefined }, signatureOf, { fromRead: true });
    return answer.json;
  }

  /**
   * POST (to the collection) or PUT `obj` at `path`; returns the stored
   * object when acknowledged. `collection`: record the acknowledged
   * resourceVersion for the watch gap check.
   */
  async put(method: 'POST' | 'PUT', path: string, obj: Json, signatureOf: SignatureOf, opts: { exactVersion?: boolean; collection?: string; unforeseeable?: boolean } = {}): Promise<{ outcome: WriteOutcome; status: number; stored?: Json }> {
    const name = (obj.metadata as { name: string }).name;
    let status = 0;
    let stored: Json | undefined;
    try {
      const answer = await this.client.request(method, method === 'POST' ? path.slice(0, path.lastIndexOf('/')) : path, obj);
      status = answer.status;
      stored = answer.json;
    } catch {
      status = 0;
    }
    const outcome = this.outcome(status, stored);
    if (outcome === 'acknowledged') {
      const rv = (stored!.metadata as { resourceVersion: string }).resourceVersion;
      this.ledger.record(path, outcome, { signatureOf, expected: { exists: true, signature: signatureOf(stored!), resourceVersion: opts.exactVersion ? rv : undefined }, collection: opts.collection, name });
      return { outcome, status, stored };
    }
    this.ledger.record(path, outcome, { signatureOf, attempted: opts.unforeseeable ? ANY : signatureOf(obj) });
    return { outcome, status, stored };
  }

  /** The outcome of an answer (status 0: none), counting refusals for lack of space. */
  private outcome(status: number, json: Json | undefined): WriteOutcome {
    const message = status >= 500 ? messageOf(json) : '';
    if (status >= 500 && NO_SPACE.test(message)) this.ledger.refusedForSpace++;
    return outcomeOf(status, message);
  }

  /** DELETE with a resourceVersion or uid precondition. */
  async delete(path: string, precondition: { resourceVersion?: string; uid?: string }, signatureOf: SignatureOf, propagationPolicy = 'Background'): Promise<WriteOutcome> {
    let status = 0;
    let json: Json | undefined;
    try {
      ({ status, json } = await this.client.request('DELETE', path, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: precondition, propagationPolicy }));
    } catch {
      status = 0;
    }
    const outcome = this.outcome(status, json);
    this.ledger.record(path, outcome, { signatureOf, expected: { exists: false }, attempted: DELETED });
    return outcome;
  }
}
