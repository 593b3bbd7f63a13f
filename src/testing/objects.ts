import type { Client } from '../client/rest/client.js';
import type { ApiObject } from '../client/rest/api-object.js';
import { isNotFound } from '../client/rest/error-predicates.js';
import type { GroupVersionResource } from '../client/rest/resource-path.js';
import type { ResourceClient } from '../client/rest/resource-client.js';

/**
 * Shortcuts for arranging a test's world through the API, as another client
 * would: write an object whatever is there, read everything, delete.
 */
export class TestObjects {
  constructor(private readonly client: Client) {}

  /**
   * Creates the object, or replaces the stored one (ignoring its
   * resourceVersion); a `status` it carries is then written through the
   * status subresource, as a controller would.
   */
  async put<T extends ApiObject>(gvr: GroupVersionResource, obj: T): Promise<T> {
    const resource = this.client.resource<T>(gvr);
    const scoped = obj.metadata?.namespace ? resource.namespace(obj.metadata.namespace) : resource;
    const written = await this.write(scoped, obj);
    const status = (obj as { status?: unknown }).status;
    if (status === undefined) return written;
    return scoped.updateStatus({ ...written, status });
  }

  private async write<T extends ApiObject>(scoped: ResourceClient<T>, obj: T): Promise<T> {
    const name = obj.metadata?.name ?? '';
    for (;;) {
      let current: T;
      try {
        current = await scoped.get(name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        try {
          return await scoped.create(obj);
        } catch (createErr) {
          if (isConflictLike(createErr)) continue;
          throw createErr;
        }
      }
      try {
        return await scoped.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: current.metadata?.resourceVersion } });
      } catch (err) {
        if (!isConflictLike(err)) throw err;
      }
    }
  }

  /** Every stored object of the resource, in all namespaces. */
  async list<T extends ApiObject>(gvr: GroupVersionResource): Promise<T[]> {
    return (await this.client.resource<T>(gvr).list()).items;
  }

  /** Deletes the object at once (grace period 0); absent is fine. */
  async erase(gvr: GroupVersionResource, namespace: string | undefined, name: string): Promise<void> {
    const resource = this.client.resource(gvr);
    try {
      await (namespace ? resource.namespace(namespace) : resource).delete(name, { gracePeriodSeconds: 0 });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

function isConflictLike(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 409;
}
