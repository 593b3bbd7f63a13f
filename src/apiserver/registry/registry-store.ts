import { randomUUID } from 'node:crypto';
import type { KubeList, KubeObject } from '../../api/object.js';
import { apiVersionOf, type ResourceInfo } from '../../api/resource-info.js';
import { alreadyExists, badRequest, conflict, notFound, STALE_OBJECT_MESSAGE } from '../../machinery/api-error.js';
import { invalid } from '../../machinery/invalid.js';
import { formatTime } from '../../machinery/time.js';
import { applyDefaults } from '../../api/defaults/index.js';
import { listSchemaForKind, setManagedFields, updateManagedFields, type ListSchema } from '../../machinery/managedfields/index.js';
import { FutureRevisionError } from '../../storage/errors.js';
import type { KeyValue, Storage } from '../../storage/storage.js';
import { decodeObject, encodedJson, encodeObject } from './codec.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { deepEqual } from './deep-equal.js';
import { rethrowStorageError } from './storage-errors.js';
import type { Strategy } from './strategy.js';
import type { ResourceModels } from '../openapi/resource-models.js';
import { tableConvertorFor, type TableConvertor } from '../tables/index.js';
import type { WriteAdmission } from './write-admission.js';
import { stageSync } from '../trace/request-span.js';

export type Filter = (obj: KubeObject) => boolean;

export interface ListParams {
  filter?: Filter;
  /** Whether the filter is non-trivial (remainingItemCount is only exact without one). */
  filtered?: boolean;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface WriteParams {
  dryRun: boolean;
  /** Records the write in managedFields as this manager's Update; unset: managedFields are left alone. */
  fieldManager?: string;
  /** The request's admission chains; unset for the server's own writes (bootstrap, TTLs). */
  admission?: WriteAdmission;
}

export interface DeleteParams extends WriteParams {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Deprecated orphanDependents flag. */
  orphanDependents?: boolean;
}

export interface DeleteOutcome {
  object: KubeObject;
  /** False when the object still exists (graceful deletion or finalizers). */
  deleted: boolean;
}

/** Transforms the current object into the desired one; throwing aborts the update. */
export type UpdateFunc = (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>;

/** The new object of a PUT or patch: the body, or a function of the current object (undefined: create). */
export type UpdateBody = KubeObject | ((current: KubeObject | undefined) => KubeObject | Promise<KubeObject>);

export interface RegistryStoreOptions {
  info: ResourceInfo;
  strategy: Strategy;
  storage: Storage;
  /** Storage key prefix (default `/registry/<resource>/`). */
  keyRoot?: string;
  clock?: () => Date;
  table?: TableConvertor;
  models?: ResourceModels;
}

const GENERATE_NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GUARANTEED_UPDATE_ATTEMPTS = 32;

/**
 * RegistryStore is the generic store for one resource: storage keys, object
 * metadata semantics, optimistic concurrency and deletion. What differs per
 * resource lives in its Strategy.
 */
export class RegistryStore {
  readonly info: ResourceInfo;
  readonly strategy: Strategy;
  private readonly storage: Storage;
  private readonly keyRoot: string;
  private readonly clock: () => Date;
  private readonly listSchema: ListSchema;
  /** The server-side printer (`kubectl get` columns). */
  readonly table: TableConvertor;
  /** OpenAPI definitions of the kinds, when they are not built-in ones (custom resources). */
  readonly models?: ResourceModels;

  constructor(opts: RegistryStoreOptions) {
    this.info = opts.info;
    this.strategy = opts.strategy;
    this.table = opts.table ?? tableConvertorFor(opts.info);
    this.models = opts.models;
    this.storage = opts.storage;
    this.keyRoot = opts.keyRoot ?? `/registry/${opts.info.resource}/`;
    this.clock = opts.clock ?? (() => new Date());
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
   * Lists objects. With `raw` (and no filter) the items come back as their
   * JSON text in `rawItems` instead of `items`, never parsed: the fast path
   * for plain JSON lists.
   */
  async list(namespace: string, params: ListParams & { raw?: boolean }): Promise<KubeList & { rawItems?: string[] }> {
    const prefix = this.prefix(namespace);
    let revision = 0;
    let startAfter: string | undefined;
    if (params.continue) {
      const token = decodeContinue(params.continue);
      revision = token.rv;
      startAfter = prefix + token.start;
    } else {
      revision = await this.listRevision(params);
    }
    const limit = params.limit && params.limit > 0 ? params.limit : undefined;
    const items: KubeObject[] = [];
    const rawItems: string[] = [];
    const raw = params.raw === true && !params.filter;
    let more = false;
    let lastKey = '';
    let remaining: number | undefined;
    for (;;) {
      const page = await this.storage
        .list(prefix, { revision, limit: limit ? Math.max(limit - items.length - rawItems.length, 1) : undefined, startAfter })
        .catch(rethrowStorageError({ verb: 'list', continuing: Boolean(params.continue) }));
      revision = page.revision;
      let i = 0;
      for (; i < page.kvs.length && !(limit && items.length + rawItems.length >= limit); i++) {
        const kv = page.kvs[i];
        lastKey = kv.key;
        if (raw) {
          rawItems.push(encodedJson(kv));
          continue;
        }
        const obj = decodeObject(kv);
        if (!params.filter || params.filter(obj)) items.push(obj);
      }
      more = i < page.kvs.length || page.more;
      remaining = page.remaining !== undefined ? page.remaining + (page.kvs.length - i) : undefined;
      if (!more || (limit && items.length + rawItems.length >= limit)) break;
      startAfter = lastKey;
    }
    const metadata: KubeList['metadata'] = { resourceVersion: String(revision) };
    if (limit && more) {
      metadata.continue = encodeContinue({ rv: revision, start: lastKey.slice(prefix.length) });
      if (!params.filtered && remaining !== undefined) metadata.remainingItemCount = remaining;
    }
    const list = { apiVersion: apiVersionOf(this.info), kind: this.info.listKind, metadata, items };
    return raw ? { ...list, rawItems } : list;
  }

  /** The revision a list without a continue token reads at (0: the current one). */
  private async listRevision(params: ListParams): Promise<number> {
    const rv = params.resourceVersion;
    if (rv === undefined || rv === '' || rv === '0') {
      if (params.resourceVersionMatch === 'Exact') throw badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
      return 0;
    }
    const n = parseResourceVersion(rv);
    if (params.resourceVersionMatch === 'Exact') return n;
    if (params.resourceVersionMatch && params.resourceVersionMatch !== 'NotOlderThan') {
      throw badRequest(`resourceVersionMatch: Unsupported value: "${params.resourceVersionMatch}": supported values: "Exact", "NotOlderThan"`);
    }
    await this.waitForRevision(n);
    return 0;
  }

  /** Waits (briefly) until the store has reached a revision a client has seen elsewhere. */
  async waitForRevision(revision: number): Promise<void> {
    const deadline = Date.now() + 3000;
    for (;;) {
      const current = await this.storage.currentRevision();
      if (current >= revision) return;
      if (Date.now() > deadline) rethrowStorageError({ verb: 'other' })(new FutureRevisionError(revision, current));
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Creates the object (already defaulted and in its namespace) with full metadata semantics. */
  async create(obj: KubeObject, params: WriteParams): Promise<KubeObject> {
    await params.admission?.mutate('CREATE', obj, undefined);
    const now = this.clock();
    applyDefaults(obj, this.info);
    const meta = (obj.metadata ??= {});
    const generated = !meta.name && Boolean(meta.generateName);
    if (generated) meta.name = `${meta.generateName}${randomSuffix(5)}`;
    meta.uid = randomUUID();
    meta.creationTimestamp = formatTime(now);
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    delete meta.selfLink;
    if (this.strategy.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    this.strategy.prepareForCreate(obj, { now });
    if (params.fieldManager !== undefined) {
      setManagedFields(obj, updateManagedFields({ new: obj, manager: params.fieldManager, apiVersion: apiVersionOf(this.info), time: now, schema: this.listSchema }));
    }
    stageSync('validation', 'validation', () => this.validate(obj, this.strategy.validate(obj)));
    await params.admission?.validate('CREATE', obj, undefined);
    // a generated name that is taken is drawn again (the suffix alphabet keeps it valid)
    for (let attempt = 0; ; attempt++) {
      const name = meta.name ?? '';
      const key = this.key(meta.namespace ?? '', name);
      const retry = () => {
        if (!generated || attempt >= 7) throw alreadyExists(this.groupResource, name);
        meta.name = `${meta.generateName}${randomSuffix(5)}`;
      };
      // allocations (cluster IPs, node ports) are only made for a free name, and a dry run writes nothing
      if ((params.dryRun || this.strategy.beforeCreate) && (await this.storage.get(key)).kv) {
        retry();
        continue;
      }
      await this.strategy.beforeCreate?.(obj, params.dryRun);
      if (params.dryRun) return obj;
      const res = await this.storage.create(key, encodeObject(obj));
      if (res.succeeded) return decodeObject(res.kv);
      await this.strategy.afterDelete?.(obj);
      retry();
    }
  }

  private validate(obj: KubeObject, errors: ReturnType<Strategy['validate']>): void {
    if (errors.length > 0) throw invalid({ group: this.info.group, kind: this.info.kind }, obj.metadata?.name ?? '', errors);
  }

  /**
   * The read-modify-write loop every update goes through: read the current
   * object, let `tryUpdate` produce the new one, write it guarded by the
   * revision read; on a lost race, read again and retry.
   */
  async guaranteedUpdate(
    namespace: string,
    name: string,
    tryUpdate: UpdateFunc,
    opts: WriteParams & { allowCreate?: boolean },
  ): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.key(namespace, name);
    let { kv } = await this.storage.get(key);
    for (let attempt = 0; attempt < MAX_GUARANTEED_UPDATE_ATTEMPTS; attempt++) {
      const current = kv ? decodeObject(kv) : undefined;
      if (!current && !opts.allowCreate) throw notFound(this.groupResource, name);
      const desired = await tryUpdate(current ? structuredClone(current) : undefined);
      if (!current) {
        const created = await this.create(desired, opts);
        return { object: created, created: true };
      }
      if (this.isNoop(current, desired)) return { object: current, created: false };
      if (opts.dryRun) return { object: desired, created: false };
      const finalizing = this.shouldDeleteDuringUpdate(desired);
      if (finalizing) {
        // the last finalizer is gone from an object being deleted: it goes away now
        const res = await this.storage.delete(key, (kv as KeyValue).modRevision);
        if (res.succeeded) {
          await this.strategy.afterDelete?.(desired);
          return { object: decodeObject({ ...res.prev, value: encodeObject(desired) }, res.revision), created: false };
        }
        kv = res.current;
        continue;
      }
      const res = await this.storage.update(key, encodeObject(desired), (kv as KeyValue).modRevision);
      if (res.succeeded) return { object: decodeObject(res.kv), created: false };
      kv = res.current;
    }
    throw conflict(this.groupResource, name, STALE_OBJECT_MESSAGE);
  }

  /** An object being deleted whose last finalizer was just removed goes away (upstream: ShouldDeleteDuringUpdate). */
  private shouldDeleteDuringUpdate(obj: KubeObject): boolean {
    const meta = obj.metadata;
    if (!meta?.deletionTimestamp || meta.deletionGracePeriodSeconds !== 0) return false;
    return this.strategy.readyToDelete ? this.strategy.readyToDelete(obj) : (meta.finalizers ?? []).length === 0;
  }

  private isNoop(current: KubeObject, desired: KubeObject): boolean {
    const a = { ...current, metadata: { ...current.metadata, resourceVersion: undefined } };
    const b = { ...desired, metadata: { ...desired.metadata, resourceVersion: undefined } };
    return deepEqual(a, b);
  }

  /**
   * PUT semantics: the body replaces the object. A resourceVersion in the body
   * is a precondition (409 when stale); metadata the server owns is kept.
   */
  async update(
    namespace: string,
    name: string,
    body: UpdateBody,
    opts: WriteParams & { subresource?: 'status' | 'approval' | 'finalize' | 'scale' | 'ephemeralcontainers'; createIfMissing?: boolean },
  ): Promise<{ object: KubeObject; created: boolean }> {
    const allowCreate = (this.strategy.allowCreateOnUpdate || Boolean(opts.createIfMissing)) && !opts.subresource;
    return this.guaranteedUpdate(
      namespace,
      name,
      async (current) => {
        if (!current) {
          if (typeof body !== 'function') return body;
          if (!opts.createIfMissing) throw notFound(this.groupResource, name);
          return body(undefined);
        }
        const input = typeof body === 'function' ? await body(structuredClone(current)) : body;
        const precondition = input.metadata?.resourceVersion;
        if (precondition && precondition !== current.metadata?.resourceVersion) {
          throw conflict(this.groupResource, name, STALE_OBJECT_MESSAGE);
        }
        const partial = opts.subresource ? this.strategy.partialUpdates?.[opts.subresource] : undefined;
        const next = opts.subresource === 'status' || opts.subresource === 'approval' ? this.statusUpdate(current, input) : partial ? partial.take(input, structuredClone(current)) : structuredClone(input);
        await opts.admission?.mutate('UPDATE', next, current);
        applyDefaults(next, this.info);
        this.carryServerMetadata(next, current);
        if (!opts.subresource) this.strategy.prepareForUpdate(next, current, { now: this.clock() });
        else this.strategy.prepareForSubresourceUpdate?.(opts.subresource, next, current, { now: this.clock() });
        this.bumpGeneration(next, current);
        if (opts.fieldManager !== undefined) {
          const entries = updateManagedFields({
            old: current,
            new: next,
            manager: opts.fieldManager,
            apiVersion: apiVersionOf(this.info),
            time: this.clock(),
            subresource: opts.subresource,
            schema: this.listSchema,
          });
          setManagedFields(next, entries);
        }
        stageSync('validation', 'validation', () => this.validate(next, partial ? partial.validateUpdate(next, current) : this.strategy.validateUpdate(next, current)));
        await opts.admission?.validate('UPDATE', next, current);
        return next;
      },
      { ...opts, allowCreate },
    );
  }

  /** A status update changes status (and metadata), never spec. */
  private statusUpdate(current: KubeObject, body: KubeObject): KubeObject {
    const next = structuredClone(current);
    next.metadata = structuredClone(body.metadata ?? {});
    if (body.status === undefined) delete next.status;
    else next.status = structuredClone(body.status);
    return next;
  }

  private carryServerMetadata(next: KubeObject, current: KubeObject): void {
    const meta = (next.metadata ??= {});
    const old = current.metadata ?? {};
    meta.name = old.name;
    if (this.info.namespaced) meta.namespace = old.namespace;
    meta.uid = old.uid;
    meta.resourceVersion ||= old.resourceVersion;
    meta.creationTimestamp = old.creationTimestamp;
    meta.generation = old.generation;
    meta.deletionTimestamp = old.deletionTimestamp;
    meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
    delete meta.selfLink;
    for (const k of ['generation', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
      if (meta[k] === undefined) delete meta[k];
    }
    next.apiVersion = current.apiVersion;
    next.kind = current.kind;
  }

  private bumpGeneration(next: KubeObject, current: KubeObject): void {
    if (!this.strategy.tracksGeneration) return;
    const strip = (o: KubeObject) => ({ ...o, metadata: undefined, status: undefined });
    const gen = current.metadata?.generation ?? 1;
    next.metadata!.generation = deepEqual(strip(next), strip(current)) ? gen : gen + 1;
  }

  /**
   * DELETE semantics: preconditions, graceful deletion (the object stays with
   * a deletionTimestamp), finalizers (it stays until they are removed), and
   * the propagation policy recorded as the GC's finalizers.
   */
  async delete(namespace: string, name: string, params: DeleteParams): Promise<DeleteOutcome> {
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < MAX_GUARANTEED_UPDATE_ATTEMPTS; attempt++) {
      const { kv } = await this.storage.get(key);
      if (!kv) throw notFound(this.groupResource, name);
      const current = decodeObject(kv);
      this.checkPreconditions(current, params);
      await params.admission?.mutate('DELETE', undefined, current);
      await params.admission?.validate('DELETE', undefined, current);
      const next = structuredClone(current);
      const meta = next.metadata!;
      const policyFinalizer = propagationFinalizer(params, this.info);
      const finalizers = new Set(meta.finalizers ?? []);
      if (policyFinalizer && !meta.deletionTimestamp) {
        finalizers.delete('orphan');
        finalizers.delete('foregroundDeletion');
        finalizers.add(policyFinalizer);
      }
      const grace = meta.deletionTimestamp
        ? Math.min(params.gracePeriodSeconds ?? meta.deletionGracePeriodSeconds ?? 0, meta.deletionGracePeriodSeconds ?? 0)
        : this.strategy.gracePeriodSeconds(current, params.gracePeriodSeconds);
      const keep = this.strategy.prepareForDelete?.(next) ?? false;
      if (finalizers.size === 0 && grace <= 0 && !keep) {
        if (params.dryRun) return { object: current, deleted: true };
        const res = await this.storage.delete(key, kv.modRevision);
        if (res.succeeded) {
          await this.strategy.afterDelete?.(current);
          return { object: decodeObject(res.prev, res.revision), deleted: true };
        }
        continue;
      }
      const now = this.clock();
      if (!meta.deletionTimestamp || grace < (meta.deletionGracePeriodSeconds ?? 0)) {
        meta.deletionTimestamp = formatTime(new Date(now.getTime() + grace * 1000));
        meta.deletionGracePeriodSeconds = grace;
      }
      meta.finalizers = [...finalizers];
      if (meta.finalizers.length === 0) delete meta.finalizers;
      if (this.isNoop(current, next)) return { object: current, deleted: false };
      if (params.dryRun) return { object: next, deleted: false };
      const res = await this.storage.update(key, encodeObject(next), kv.modRevision);
      if (res.succeeded) return { object: decodeObject(res.kv), deleted: false };
    }
    throw conflict(this.groupResource, name, STALE_OBJECT_MESSAGE);
  }

  private checkPreconditions(current: KubeObject, params: DeleteParams): void {
    const pre = params.preconditions;
    const name = current.metadata?.name ?? '';
    if (pre?.uid && pre.uid !== current.metadata?.uid) {
      throw conflict(
        this.groupResource,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata?.uid ?? ''}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata?.resourceVersion) {
      throw conflict(
        this.groupResource,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata?.resourceVersion ?? ''}`,
      );
    }
  }

  /** The storage, for watch (which needs revisions and raw events). */
  get backing(): Storage {
    return this.storage;
  }
}

function propagationFinalizer(params: DeleteParams, info: ResourceInfo): string | undefined {
  const policy = params.propagationPolicy;
  if (policy === 'Orphan' || (policy === undefined && params.orphanDependents === true)) return 'orphan';
  if (policy === 'Foreground') return 'foregroundDeletion';
  if (policy === undefined && params.orphanDependents === undefined) {
    // upstream orphans by default for these legacy kinds when no policy is given
    if (info.group === 'apps' && ['replicasets', 'statefulsets', 'daemonsets'].includes(info.resource) && info.version !== 'v1') {
      return 'orphan';
    }
  }
  return undefined;
}

const MAX_UINT64 = 2n ** 64n - 1n;

export function parseResourceVersion(rv: string): number {
  if (!/^[0-9]+$/.test(rv)) throw badRequest(`invalid resource version "${rv}": strconv.ParseUint: parsing "${rv}": invalid syntax`);
  if (BigInt(rv) > MAX_UINT64) throw badRequest(`invalid resource version "${rv}": strconv.ParseUint: parsing "${rv}": value out of range`);
  return Number(rv);
}


function randomSuffix(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += GENERATE_NAME_CHARS[Math.floor(Math.random() * GENERATE_NAME_CHARS.length)];
  return s;
}
