import type { ApiObject } from '../../client/rest/api-object.js';
import type { ResourceClient } from '../../client/rest/resource-client.js';
import { isConflict } from '../../client/rest/error-predicates.js';

/**
 * Writes a status derived from pods (not from the old status), retrying once
 * on a fresh read after a conflict: the conflict usually means only that our
 * cache has not yet seen our own previous write.
 */
export async function updateStatusFresh<T extends ApiObject & { status?: S }, S>(client: ResourceClient<T>, obj: T, status: S): Promise<T> {
  try {
    return await client.updateStatus({ ...obj, status });
  } catch (err) {
    if (!isConflict(err)) throw err;
    const fresh = await client.get(obj.metadata?.name ?? '');
    if (fresh.metadata?.uid !== obj.metadata?.uid) throw err;
    return client.updateStatus({ ...fresh, status });
  }
}
