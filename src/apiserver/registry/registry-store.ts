import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import { notFound } from '../../machinery/api-error.js';
import { listSchemaForKind, type ListSchema } from '../../machinery/managedfields/index.js';
import type { Storage } from '../../storage/storage.js';
import type { ResourceModels } from '../openapi/resource-models.js';
import { tableConvertorFor, type TableConvertor } from '../tables/index.js';
import { decodeObject, decodeShared } from './codec.js';
import { createObject } from './create-object.js';
import { deleteObject } from './delete-object.js';
import { listObjects, waitForRevision, type RawList } from './list-objects.js';
import type { DeleteOutcome, DeleteParams, ListParams, StoreContext, UpdateBody, UpdateFunc, WriteParams } from './store-context.js';
import type { Strategy } from './strategy.js';
import { guaranteedUpdate, updateObject } from './update-object.js';
import { realClock, type Clock } from '../../base/clock.js';

export type { DeleteOutcome, DeleteParams, Filter, ListParams, UpdateBody, UpdateFunc, WriteParams } from './store-context.js';
export { parseResourceVersion } from './list-objects.js';

export interface RegistryStoreOptions {
  info: ResourceInfo;
  strategy: Strategy;
  storage: Storage;
  /** Storage key prefix (default `/registry/<resource>/`). */
  keyRoot?: string;
  /** Where creation, deletion and managed-fields times come from (default: the real clock). */
  clock?: Clock;
  table?: TableConvertor;
  models?: ResourceModels;
}

/**
 * RegistryStore is the generic store for one resource: storage keys, object
 * metadata semantics, optimistic concurrency and deletion. What differs per
 * resource lives in its Strategy. Each path is its own file: create
 * (`create-object.ts`), update (`update-object.ts`), delete
 * (`delete-object.ts`), list (`list-objects.ts`); watch is `watch.ts`.
 */
export class RegistryStore implements StoreContext {
  readonly info: ResourceInfo;
  readonly strategy: Strategy;
  readonly storage: Storage;
  readonly clock: Clock;
  readonly listSchema: ListSchema;
  /** The server-side printer (`kubectl get` columns). */
  readonly table: TableConvertor;
  /** OpenAPI definitions of the kinds, when they are not built-in ones (custom resources). */
  readonly models?: ResourceModels;
  private readonly keyRoot: string;

  constructor(opts: RegistryStoreOptions) {
    this.info = opts.info;
    this.strategy = opts.strategy;
    this.table = opts.table ?? tableConvertorFor(opts.info);
    this.models = opts.models;
    this.storage = opts.storage;
    this.keyRoot = opts.keyRoot ?? `/registry/${opts.info.resource}/`;
    this.clock = opts.clock ?? realClock;
    this.listSchema = listSchemaForKind(opts.info);
  }

  get groupResource() {
    return { group: this.info.group, resource: this.info.resource };
  }

  /** The storage prefix for a namespace, or for all namespaces when empty. */
  prefix(namespace: string): string {
    return this.info.namespaced && namespace ? `${this.keyRoot}${namespace}/` : this.keyRoot;
  }

  key(namespace: string, name: string): string {
    return this.info.namespaced ? `${this.keyRoot}${namespace}/${name}` : `${this.keyRoot}${name}`;
  }

  async get(namespace: string, name: string): Promise<KubeObject> {
    const { kv } = await this.storage.get(this.key(namespace, name));
    if (!kv) throw notFound(this.groupResource, name);
    return decodeObject(kv);
  }

  /**
   * The object as the watch cache holds it, without a storage read (what
   * upstream's admission plugins read through listers): shared, so
   * read-only, and it may lag the storage; read from the storage when the
   * cache holds none (NotFound only when the storage has none either). The
   * resource's cache is started on first use, as upstream's admission
   * plugins start the informers they read.
   */
  async getShared(namespace: string, name: string): Promise<KubeObject> {
    const key = this.key(namespace, name);
    const kv = this.storage.getCached?.(key, { start: true }) ?? (await this.storage.get(key)).kv;
    if (!kv) throw notFound(this.groupResource, name);
    return decodeShared(kv);
  }

  /** Lists objects; with `raw` (and no filter) the items come back unparsed in `rawKvs`. */
  list(namespace: string, params: ListParams & { raw?: boolean }): Promise<RawList> {
    return listObjects(this, namespace, params);
  }

  /** Waits (briefly) until the store has reached a revision a client has seen elsewhere. */
  waitForRevision(revision: number): Promise<void> {
    return waitForRevision(this, revision);
  }

  /** Creates the object (already defaulted and in its namespace) with full metadata semantics. */
  create(obj: KubeObject, params: WriteParams): Promise<KubeObject> {
    return createObject(this, obj, params);
  }

  /** The read-modify-write loop every update goes through. */
  guaranteedUpdate(namespace: string, name: string, tryUpdate: UpdateFunc, opts: WriteParams & { allowCreate?: boolean }): Promise<{ object: KubeObject; created: boolean }> {
    return guaranteedUpdate(this, namespace, name, tryUpdate, opts);
  }

  /** PUT semantics: the body replaces the object; metadata the server owns is kept. */
  update(
    namespace: string,
    name: string,
    body: UpdateBody,
    opts: WriteParams & { subresource?: 'status' | 'approval' | 'finalize' | 'scale' | 'ephemeralcontainers'; createIfMissing?: boolean },
  ): Promise<{ object: KubeObject; created: boolean }> {
    return updateObject(this, namespace, name, body, opts);
  }

  /** DELETE semantics: preconditions, graceful deletion, finalizers, propagation policy. */
  delete(namespace: string, name: string, params: DeleteParams): Promise<DeleteOutcome> {
    return deleteObject(this, namespace, name, params);
  }

  /** The storage, for watch (which needs revisions and raw events). */
  get backing(): Storage {
    return this.storage;
  }
}
