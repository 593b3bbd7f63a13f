import type { ApiObject, ObjectList } from '../rest/api-object.js';
import type { ListOptions, ResourceClient, WatchOptions } from '../rest/resource-client.js';
import type { WatchEvent } from '../rest/watch-event.js';

export type ListFunc<T extends ApiObject> = (options: ListOptions) => Promise<ObjectList<T>>;
export type WatchFunc<T extends ApiObject> = (options: WatchOptions) => AsyncIterable<WatchEvent<T>>;

/** The two calls a Reflector needs. */
export interface ListerWatcher<T extends ApiObject> {
  list: ListFunc<T>;
  watch: WatchFunc<T>;
}

/** A ListerWatcher over a resource client, optionally narrowed by selectors. */
export function listWatcherFor<T extends ApiObject>(
  client: ResourceClient<T>,
  selectors: { labelSelector?: string; fieldSelector?: string } = {},
): ListerWatcher<T> {
  return {
    list: (options) => client.list({ ...selectors, ...options, withCauses: true }),
    watch: (options) => client.watch({ ...selectors, ...options }),
  };
}
