/** The signature of an object that is being deleted (it has a deletionTimestamp). */
export const DELETED = 'deleted';

/** An attempted write whose result cannot be foretold (a create that allocates): any state may follow. */
export const ANY = '*';

/** What an object should look like after its last acknowledged write. */
export interface Expectation {
  exists: boolean;
  /** resourceVersion it must have (only for objects nothing but the soak writes). */
  resourceVersion?: string;
  /** What the soak wrote, summed up by the object's signature function. */
  signature?: string;
}

/** How a write ended: answered 2xx, refused with a definite answer, or unknown (timeout, reset, 5xx). */
export type WriteOutcome = 'acknowledged' | 'refused' | 'uncertain';

interface Entry {
  expected: Expectation;
  /** Signatures (or 'deleted') of writes whose outcome is unknown since the last acknowledgement: they may still land. */
  maybe: Set<string>;
  signatureOf: (obj: Record<string, unknown>) => string;
  lastAckAt: number;
}

export interface LedgerViolation {
  path: string;
  message: string;
}

/**
 * Every acknowledged write, by object: at the end each object is read back
 * and must be as its last acknowledged write left it, unless a write whose
 * outcome was unknown (a timeout, a reset connection) may have landed
 * since. Writes carry resourceVersion preconditions, so such a write can
 * only land over the state it was based on, never over a later
 * acknowledged one.
 */
export class WriteLedger {
  acknowledged = 0;
  refused = 0;
  /** Of the refused: answered with the storage's NOSPACE (a full disk or the quota). */
  refusedForSpace = 0;
  uncertain = 0;
  /** Acknowledged (name, resourceVersion) pairs per collection, for the watch gap check. */
  readonly acks = new Map<string, { name: string; rv: number }[]>();
  private readonly entries = new Map<string, Entry>();

  /** The acknowledged state of `path` (a write's answer, or a read that settles an uncertain write). */
  settle(path: string, expected: Expectation, signatureOf: Entry['signatureOf'], opts: { fromRead?: boolean } = {}): void {
    // a read does not rule out a write still in flight landing later; an acknowledged write (with its precondition) does
    const maybe = opts.fromRead ? (this.entries.get(path)?.maybe ?? new Set<string>()) : new Set<string>();
    this.entries.set(path, { expected, maybe, signatureOf, lastAckAt: Date.now() });
  }

  record(path: string, outcome: WriteOutcome, opts: { expected?: Expectation; attempted?: string; signatureOf: Entry['signatureOf']; collection?: string; name?: string }): void {
    if (outcome === 'acknowledged') {
      this.acknowledged++;
      this.settle(path, opts.expected!, opts.signatureOf);
      const rv = Number(opts.expected?.resourceVersion);
      if (opts.collection && opts.name && opts.expected?.exists && Number.isFinite(rv)) {
        const list = this.acks.get(opts.collection) ?? [];
        list.push({ name: opts.name, rv });
        this.acks.set(opts.collection, list);
      }
    } else if (outcome === 'refused') {
      this.refused++;
    } else {
      this.uncertain++;
      const e = this.entries.get(path) ?? { expected: { exists: false }, maybe: new Set<string>(), signatureOf: opts.signatureOf, lastAckAt: 0 };
      if (opts.attempted) e.maybe.add(opts.attempted);
      this.entries.set(path, e);
    }
  }

  expectation(path: string): Expectation | undefined {
    return this.entries.get(path)?.expected;
  }

  get objects(): number {
    return this.entries.size;
  }

  /** Checks one object's read-back state (`undefined`: not found) against its record. */
  check(path: string, actual: Record<string, unknown> | undefined): LedgerViolation | undefined {
    const e = this.entries.get(path);
    if (!e) return undefined;
    const { expected } = e;
    if (!actual) {
      if (!expected.exists || e.maybe.has(DELETED)) return undefined;
      return { path, message: `acknowledged at resourceVersion ${expected.resourceVersion ?? '?'} (${expected.signature ?? ''}) but not found` };
    }
    const signature = e.signatureOf(actual);
    const rv = String((actual.metadata as { resourceVersion?: string } | undefined)?.resourceVersion ?? '');
    if (!expected.exists) {
      if (signature === DELETED || e.maybe.has(signature) || e.maybe.has(ANY)) return undefined;
      return { path, message: `acknowledged as deleted but found (resourceVersion ${rv}, ${signature})` };
    }
    if (signature === expected.signature && (expected.resourceVersion === undefined || expected.resourceVersion === rv)) return undefined;
    if (e.maybe.has(signature) || e.maybe.has(ANY)) return undefined;
    return { path, message: `acknowledged ${expected.signature} at resourceVersion ${expected.resourceVersion ?? '?'}, read back ${signature} at ${rv}` };
  }

  paths(): string[] {
    return [...this.entries.keys()];
  }
}
