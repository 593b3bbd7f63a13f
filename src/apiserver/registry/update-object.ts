import type { KubeObject } from '../../api/object.js';
import { apiVersionOf } from '../../api/resource-info.js';
import { applyDefaults } from '../../api/defaults/index.js';
import { conflict, notFound, STALE_OBJECT_MESSAGE } from '../../machinery/api-error.js';
import { setManagedFields, updateManagedFields } from '../../machinery/managedfields/index.js';
import type { KeyValue } from '../../storage/storage.js';
import { decodeObject, decodeShared, decodeWritten, encodeObject } from './codec.js';
import { cloneJson } from '../../machinery/patch/json-value.js';
import { createObject } from './create-object.js';
import { deepEqual } from './deep-equal.js';
import { tracedCommit, tracedStage } from '../trace/request-trace.js';
import { MAX_GUARANTEED_UPDATE_ATTEMPTS, throwIfInvalid, type StoreContext, type UpdateBody, type UpdateFunc, type WriteParams } from './store-context.js';

/**
 * The read-modify-write loop every update goes through: read the current
 * object, let `tryUpdate` produce the new one, write it guarded by the
 * revision read; on a lost race, read again and retry.
 *
 * The first read is the watch cache's (upstream's cachedExistingObject): no
 * storage read, and its decoded object is the one its watchers share. The
 * cache may lag, so whatever it alone could have caused is checked against
 * the storage: a lost compare-and-swap, an error from `tryUpdate` (a stale
 * resourceVersion precondition, say), and a no-op; each re-reads the storage
 * and goes on from there. `tryUpdate` gets a copy of the current object it
 * may change, unless `readOnlyCurrent` (then it must not change it).
 */
export async function guaranteedUpdate(
  ctx: StoreContext,
  namespace: string,
  name: string,
  tryUpdate: UpdateFunc,
  opts: WriteParams & { allowCreate?: boolean; readOnlyCurrent?: boolean },
): Promise<{ object: KubeObject; created: boolean }> {
  const key = ctx.key(namespace, name);
  const read = async () => (await ctx.storage.get(key)).kv;
  // a dry run answers what the storage holds, as it writes nothing that could be refused
  let kv = opts.dryRun ? undefined : ctx.storage.getCached?.(key);
  let cached = kv !== undefined;
  if (!cached) kv = await read();
  for (let attempt = 0; attempt < MAX_GUARANTEED_UPDATE_ATTEMPTS; attempt++) {
    const current = kv ? decodeShared(kv) : undefined;
    if (!current && !opts.allowCreate) throw notFound(ctx.groupResource, name);
    let desired: KubeObject;
    try {
      desired = await tryUpdate(current && !opts.readOnlyCurrent ? copy(current) : current);
    } catch (err) {
      if (!cached) throw err;
      // the cached object may be stale: only the storage's can fail the update
      const fresh = await read();
      cached = false;
      if (fresh?.modRevision === kv!.modRevision) throw err;
      kv = fresh;
      continue;
    }
    if (!current) {
      const created = await createObject(ctx, desired, opts);
      return { object: created, created: true };
    }
    if (isNoop(current, desired)) {
      if (cached) {
        // nothing to write is only an answer once the storage agrees on what is there
        const fresh = await read();
        cached = false;
        if (fresh?.modRevision !== kv!.modRevision) {
          kv = fresh;
          continue;
        }
      }
      return { object: current, created: false };
    }
    if (opts.dryRun) return { object: desired, created: false };
    const revision = (kv as KeyValue).modRevision;
    cached = false;
    if (shouldDeleteDuringUpdate(ctx, desired)) {
      // the last finalizer is gone from an object being deleted: it goes away now
      const res = await tracedCommit(opts.trace, 'delete', key, () => ctx.storage.delete(key, revision));
      if (res.succeeded) {
        await ctx.strategy.afterDelete?.(desired);
        return { object: decodeObject({ ...res.prev, value: encodeObject(desired) }, res.revision), created: false };
      }
      kv = res.current;
      continue;
    }
    const value = encodeObject(desired);
    const res = await tracedCommit(opts.trace, 'update', key, () => ctx.storage.update(key, value, revision));
    if (res.succeeded) {
      await ctx.strategy.afterUpdate?.(desired, current);
      return { object: decodeWritten(res.kv), created: false };
    }
    kv = res.current;
  }
  throw conflict(ctx.groupResource, name, STALE_OBJECT_MESSAGE);
}

/**
 * PUT semantics: the body replaces the object. A resourceVersion in the body
 * is a precondition (409 when stale); metadata the server owns is kept.
 */
export async function updateObject(
  ctx: StoreContext,
  namespace: string,
  name: string,
  body: UpdateBody,
  opts: WriteParams & { subresource?: 'status' | 'approval' | 'finalize' | 'scale' | 'ephemeralcontainers'; createIfMissing?: boolean },
): Promise<{ object: KubeObject; created: boolean }> {
  const allowCreate = (ctx.strategy.allowCreateOnUpdate || Boolean(opts.createIfMissing)) && !opts.subresource;
  return guaranteedUpdate(
    ctx,
    namespace,
    name,
    async (current) => {
      if (!current) {
        if (typeof body !== 'function') return body;
        if (!opts.createIfMissing) throw notFound(ctx.groupResource, name);
        return body(undefined);
      }
      const input = typeof body === 'function' ? await body(copy(current)) : body;
      const precondition = input.metadata?.resourceVersion;
      if (precondition && precondition !== current.metadata?.resourceVersion) {
        throw conflict(ctx.groupResource, name, STALE_OBJECT_MESSAGE);
      }
      const partial = opts.subresource ? ctx.strategy.partialUpdates?.[opts.subresource] : undefined;
      const next = opts.subresource === 'status' || opts.subresource === 'approval' ? statusUpdate(current, input) : partial ? partial.take(input, copy(current)) : copy(input);
      await opts.admission?.mutate('UPDATE', next, current);
      applyDefaults(next, ctx.info);
      carryServerMetadata(ctx, next, current);
      if (!opts.subresource) ctx.strategy.prepareForUpdate(next, current, { now: new Date(ctx.clock.now()) });
      else ctx.strategy.prepareForSubresourceUpdate?.(opts.subresource, next, current, { now: new Date(ctx.clock.now()) });
      bumpGeneration(ctx, next, current);
      if (opts.fieldManager !== undefined) {
        const entries = updateManagedFields({
          old: current,
          new: next,
          manager: opts.fieldManager,
          apiVersion: apiVersionOf(ctx.info),
          time: new Date(ctx.clock.now()),
          subresource: opts.subresource,
          schema: ctx.listSchema,
        });
        setManagedFields(next, entries);
      }
      tracedStage(opts.trace, 'validation', 'validation', () => throwIfInvalid(ctx, next, partial ? partial.validateUpdate(next, current) : ctx.strategy.validateUpdate(next, current)));
      await opts.admission?.validate('UPDATE', next, current);
      return next;
    },
    // `current` is the shared decoded object: everything changed here is a copy
    { ...opts, allowCreate, readOnlyCurrent: true },
  );
}

/** Whether a write would change nothing but the resourceVersion. */
export function isNoop(current: KubeObject, desired: KubeObject): boolean {
  const a = { ...current, metadata: { ...current.metadata, resourceVersion: undefined } };
  const b = { ...desired, metadata: { ...desired.metadata, resourceVersion: undefined } };
  return deepEqual(a, b);
}

/** An object being deleted whose last finalizer was just removed goes away (upstream: ShouldDeleteDuringUpdate). */
function shouldDeleteDuringUpdate(ctx: StoreContext, obj: KubeObject): boolean {
  const meta = obj.metadata;
  if (!meta?.deletionTimestamp || meta.deletionGracePeriodSeconds !== 0) return false;
  return ctx.strategy.readyToDelete ? ctx.strategy.readyToDelete(obj) : (meta.finalizers ?? []).length === 0;
}

/** A status update changes status (and metadata), never spec. */
function statusUpdate(current: KubeObject, body: KubeObject): KubeObject {
  // fields keep their places; what the body replaces is not copied from current first
  const next: KubeObject = { ...current, metadata: copy(body.metadata ?? {}) };
  if (body.status === undefined) delete next.status;
  else next.status = copy(body.status);
  for (const k of Object.keys(next)) if (k !== 'metadata' && k !== 'status') next[k] = copy(next[k]);
  return next;
}

/** A deep copy of a JSON object (decoded or parsed: nothing JSON cannot hold). */
function copy<T>(value: T): T {
  return cloneJson(value) as T;
}

function carryServerMetadata(ctx: StoreContext, next: KubeObject, current: KubeObject): void {
  const meta = (next.metadata ??= {});
  const old = current.metadata ?? {};
  meta.name = old.name;
  if (ctx.info.namespaced) meta.namespace = old.namespace;
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

function bumpGeneration(ctx: StoreContext, next: KubeObject, current: KubeObject): void {
  if (!ctx.strategy.tracksGeneration) return;
  const strip = (o: KubeObject) => ({ ...o, metadata: undefined, status: undefined });
  const gen = current.metadata?.generation ?? 1;
  next.metadata!.generation = deepEqual(strip(next), strip(current)) ? gen : gen + 1;
}
