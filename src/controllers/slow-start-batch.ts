/**
 * Calls `fn` `count` times in batches of growing size (1, 2, 4, …, as
 * upstream's slowStartBatch), so that a call failing for a systematic reason
 * (quota, admission) fails once rather than `count` times. Stops after the
 * first batch with an error. Returns how many calls succeeded and the first error.
 */
export async function slowStartBatch(count: number, initialBatchSize: number, fn: (index: number) => Promise<void>): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  let index = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn(index++)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += results.length - results.filter((r) => r.status === 'rejected').length;
    if (failed) return { successes, error: failed.reason };
    remaining -= batch;
  }
  return { successes };
}
