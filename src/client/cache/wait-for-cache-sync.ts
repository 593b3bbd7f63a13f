/** Anything that can report a completed initial sync. */
export interface Syncable {
  whenSynced(signal?: AbortSignal): Promise<boolean>;
}

/** Resolves true when every informer has synced, false if the signal aborts first. */
export async function waitForCacheSync(signal: AbortSignal, ...informers: Syncable[]): Promise<boolean> {
  const results = await Promise.all(informers.map((i) => i.whenSynced(signal)));
  return results.every(Boolean);
}
