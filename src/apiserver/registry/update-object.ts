import type { KubeObject } from '../../api/object.js';
import { apiVersionOf } from '../../api/resource-info.js';
import { applyDefaults } from '../../api/defaults/index.js';
import { conflict, notFound, STALE_OBJECT_MESSAGE } from '../../machinery/api-error.js';
import { setManagedFields, updateManagedFields } from '../../machinery/managedfields/index.js';
import type { KeyValue } from '../../storage/storage.js';
import { decodeObject, decodeWritten, encodeObject } from './codec.js';
import { createObject } from './create-object.js';
import { deepEqual } from './deep-equal.js';
import { tracedCommit, tracedStage } from '../trace/request-trace.js';
import { MAX_GUARANTEED_UPDATE_ATTEMPTS, throwIfInvalid, type StoreContext, type UpdateBody, type UpdateFunc, type WriteParams } from './store-context.js';

/**
 * The read-modify-write loop every update goes through: read the current
 * object, let `tryUpdate` produce the new one, write it guarded by the
 * revision read; on a lost race, read again and retry.
 */
export async function guaranteedUpdate(
  ctx: StoreContext,
  namespace: string,
  name: string,
  tryUpdate: UpdateFunc,
  opts: WriteParams & { allowCreate?: boolean },
): Promise<{ object: KubeObject; created: boolean }> {
  const key = ctx.key(namespace, name);
  let { kv } = await ctx.storage.get(key);
  for (let attempt = 0; attempt < MAX_GUARANTEED_UPDATE_ATTEMPTS; attempt++) {
    const current = kv ? decodeObject(kv) : undefined;
    if (!current && !opts.allowCreate) throw notFound(ctx.groupResource, name);
    // a second parse of the stored text is the cheapest deep copy
    const desired = await tryUpdate(current ? decodeObject(kv!) : undefined);
    if (!current) {
      const created = await createObject(ctx, desired, opts);
      return { object: created, created: true };
    }
    if (isNoop(current, desired)) return { object: current, created: false };
    if (opts.dryRun) return { object: desired, created: false };
    if (shouldDeleteDuringUpdate(ctx, desired)) {
      // the last finalizer is gone from an object being deleted: it goes away now
      const revision = (kv as KeyValue).modRevision;
      const res = await tracedCommit(opts.trace, 'delete', key, () => ctx.storage.delete(key, revision));
      if (res.succeeded) {
        await ctx.strategy.afterDelete?.(desired);
        return { object: decodeObject({ ...res.prev, value: encodeObject(desired) }, res.revision), created: false };
      }
      kv = res.current;
      continue;
    }
    const value = encodeObject(desired);
    const revision = (kv as KeyValue).modRevision;
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
      const input = typeof body === 'function' ? await body(structuredClone(current)) : body;
      const precondition = input.metadata?.resourceVersion;
      if (precondition && precondition !== current.metadata?.resourceVersion) {
        throw conflict(ctx.groupResource, name, STALE_OBJECT_MESSAGE);
      }
      const partial = opts.subresource ? ctx.strategy.partialUpdates?.[opts.subresource] : undefined;
      const next = opts.subresource === 'status' || opts.subresource === 'approval' ? statusUpdate(current, input) : partial ? partial.take(input, structuredClone(current)) : structuredClone(input);
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
    { ...opts, allowCreate },
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
  const next = structuredClone(current);
  next.metadata = structuredClone(body.metadata ?? {});
  if (body.status === undefined) delete next.status;
  else next.status = structuredClone(body.status);
  return next;
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
