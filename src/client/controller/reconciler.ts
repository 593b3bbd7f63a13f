/** Asks for a later look at the same key even though this pass succeeded. */
export interface ReconcileResult {
  /** Milliseconds until the key is queued again. */
  requeueAfter?: number;
}

/**
 * Level-triggered: given a `namespace/name` key, make the world match the
 * object's spec. Throwing means "retry with backoff"; TerminalError means
 * "do not retry".
 */
export interface Reconciler {
  reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void>;
}

export type ReconcileFunc = Reconciler['reconcile'];

/** A failure retrying cannot fix (e.g. an invalid spec): the key is dropped, not requeued. */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
