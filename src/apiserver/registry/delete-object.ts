import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import { conflict, notFound, STALE_OBJECT_MESSAGE } from '../../machinery/api-error.js';
import { formatTime } from '../../machinery/time.js';
import { decodeObject, encodeObject } from './codec.js';
import { MAX_GUARANTEED_UPDATE_ATTEMPTS, type DeleteOutcome, type DeleteParams, type StoreContext } from './store-context.js';
import { isNoop } from './update-object.js';
import { tracedCommit } from '../trace/request-trace.js';

/**
 * DELETE semantics: preconditions, graceful deletion (the object stays with
 * a deletionTimestamp), finalizers (it stays until they are removed), and
 * the propagation policy recorded as the GC's finalizers.
 */
export async function deleteObject(ctx: StoreContext, namespace: string, name: string, params: DeleteParams): Promise<DeleteOutcome> {
  const key = ctx.key(namespace, name);
  for (let attempt = 0; attempt < MAX_GUARANTEED_UPDATE_ATTEMPTS; attempt++) {
    const { kv } = await ctx.storage.get(key);
    if (!kv) throw notFound(ctx.groupResource, name);
    const current = decodeObject(kv);
    checkPreconditions(ctx, current, params);
    await params.admission?.mutate('DELETE', undefined, current);
    await params.admission?.validate('DELETE', undefined, current);
    const next = structuredClone(current);
    const meta = next.metadata!;
    const policyFinalizer = propagationFinalizer(params, ctx.info);
    const finalizers = new Set(meta.finalizers ?? []);
    if (policyFinalizer && !meta.deletionTimestamp) {
      finalizers.delete('orphan');
      finalizers.delete('foregroundDeletion');
      finalizers.add(policyFinalizer);
    }
    const grace = meta.deletionTimestamp
      ? Math.min(params.gracePeriodSeconds ?? meta.deletionGracePeriodSeconds ?? 0, meta.deletionGracePeriodSeconds ?? 0)
      : ctx.strategy.gracePeriodSeconds(current, params.gracePeriodSeconds);
    const keep = ctx.strategy.prepareForDelete?.(next, { now: new Date(ctx.clock.now()) }) ?? false;
    if (finalizers.size === 0 && grace <= 0 && !keep) {
      if (params.dryRun) return { object: current, deleted: true };
      const res = await tracedCommit(params.trace, 'delete', key, () => ctx.storage.delete(key, kv.modRevision));
      if (res.succeeded) {
        await ctx.strategy.afterDelete?.(current);
        return { object: decodeObject(res.prev, res.revision), deleted: true };
      }
      continue;
    }
    const now = new Date(ctx.clock.now());
    if (!meta.deletionTimestamp || grace < (meta.deletionGracePeriodSeconds ?? 0)) {
      meta.deletionTimestamp = formatTime(new Date(now.getTime() + grace * 1000));
      meta.deletionGracePeriodSeconds = grace;
    }
    meta.finalizers = [...finalizers];
    if (meta.finalizers.length === 0) delete meta.finalizers;
    if (isNoop(current, next)) return { object: current, deleted: false };
    if (params.dryRun) return { object: next, deleted: false };
    const value = encodeObject(next);
    const res = await tracedCommit(params.trace, 'update', key, () => ctx.storage.update(key, value, kv.modRevision));
    if (res.succeeded) return { object: decodeObject(res.kv), deleted: false };
  }
  throw conflict(ctx.groupResource, name, STALE_OBJECT_MESSAGE);
}

function checkPreconditions(ctx: StoreContext, current: KubeObject, params: DeleteParams): void {
  const pre = params.preconditions;
  const name = current.metadata?.name ?? '';
  if (pre?.uid && pre.uid !== current.metadata?.uid) {
    throw conflict(ctx.groupResource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata?.uid ?? ''}`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== current.metadata?.resourceVersion) {
    throw conflict(
      ctx.groupResource,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata?.resourceVersion ?? ''}`,
    );
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
