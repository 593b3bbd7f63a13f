import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { KubeObject } from '../../api/object.js';
import { realClock, type Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import { formatTime } from '../../machinery/time.js';
import type { RegistryStore } from '../registry/registry-store.js';
import { watchObjects } from '../registry/watch.js';
import { decideNames, setCondition } from './crd-names.js';
import { instancesDeleted } from './crd-strategy.js';

export interface CrdControllerOptions {
  /** The customresourcedefinitions store. */
  store: RegistryStore;
  logger: Logger;
  signal: AbortSignal;
  /** Where condition times and retry waits come from (default: the real clock). */
  clock?: Clock;
  /** Called after a CRD changed or went away (the serving side follows it). */
  onChange?: (crd: CustomResourceDefinition | undefined, name: string) => void;
  /** Deletes a CRD's custom resources; resolves to how many are still there. */
  deleteInstances?: (crd: CustomResourceDefinition) => Promise<number>;
  /** How often a CRD whose instances are still going away is looked at again. */
  retryIntervalMs?: number;
}

/**
 * Keeps every CRD's `status.acceptedNames` and its NamesAccepted and
 * Established conditions true to the naming rules, and finishes deletions:
 * a CRD being deleted is marked Terminating, its custom resources are
 * deleted, then its cleanup finalizer is removed. Level triggered: any
 * change of a CRD re-decides its whole group, because freeing or taking a
 * name can change a sibling's outcome. Restarts its watch on failure.
 */
export async function runCrdController(opts: CrdControllerOptions): Promise<void> {
  const clock = opts.clock ?? realClock;
  const terminating = new Set<string>();
  const retries = retryTerminating(opts, terminating, clock);
  let backoffMs = 100;
  while (!opts.signal.aborted) {
    try {
      for await (const ev of watchObjects(opts.store, '', { signal: opts.signal })) {
        const crd = ev.object as unknown as CustomResourceDefinition;
        const name = crd.metadata?.name ?? '';
        await reconcileGroup(opts.store, crd.spec?.group ?? '', clock);
        opts.onChange?.(ev.type === 'DELETED' ? undefined : crd, name);
        if (ev.type !== 'DELETED' && crd.metadata?.deletionTimestamp && !(await finishDeletion(opts, name, clock))) terminating.add(name);
        backoffMs = 100;
      }
    } catch (err) {
      if (opts.signal.aborted) break;
      opts.logger.warn('CRD controller restarting', { error: err instanceof Error ? err.message : String(err) });
      await clock.sleep(backoffMs * (1 + Math.random() * 0.5), opts.signal);
      backoffMs = Math.min(backoffMs * 2, 5000);
    }
  }
  await retries;
}

/** Deletions waiting on finalizers of custom resources are retried on a timer. */
async function retryTerminating(opts: CrdControllerOptions, names: Set<string>, clock: Clock): Promise<void> {
  while (!opts.signal.aborted) {
    await clock.sleep(opts.retryIntervalMs ?? 1000, opts.signal);
    for (const name of [...names]) {
      try {
        if (await finishDeletion(opts, name, clock)) names.delete(name);
      } catch (err) {
        opts.logger.warn('CRD cleanup failed', { crd: name, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
}

/** One step of a CRD's deletion; true when nothing is left to do. */
async function finishDeletion(opts: CrdControllerOptions, name: string, clock: Clock): Promise<boolean> {
  const crd = (await opts.store.get('', name).catch(() => undefined)) as unknown as CustomResourceDefinition | undefined;
  if (!crd?.metadata?.deletionTimestamp || instancesDeleted(crd)) return true;
  const left = opts.deleteInstances ? await opts.deleteInstances(crd) : 0;
  const stamp = formatTime(new Date(clock.now()));
  // the last status write lets the CRD go (its strategy keeps it until InstanceDeletionCompleted)
  await writeStatus(opts.store, name, (c) =>
    setCondition(
      (c.status!.conditions ??= []),
      left > 0
        ? { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: `could not confirm zero CustomResources remaining: ${left} remaining` }
        : { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' },
      stamp,
    ),
  );
  return left === 0;
}

async function writeStatus(store: RegistryStore, name: string, change: (crd: CustomResourceDefinition) => boolean): Promise<void> {
  await store.update(
    '',
    name,
    (current) => {
      const next = current as unknown as CustomResourceDefinition;
      next.status ??= {} as NonNullable<CustomResourceDefinition['status']>;
      change(next);
      return next as unknown as KubeObject;
    },
    { dryRun: false, subresource: 'status' },
  );
}

/** Re-decides the names of every CRD of a group; writes only what changed. */
export async function reconcileGroup(store: RegistryStore, group: string, clock: Clock): Promise<void> {
  const all = (await store.list('', {})).items as unknown as CustomResourceDefinition[];
  for (const crd of all.filter((c) => c.spec?.group === group)) {
    if (!decide(structuredClone(crd), all, clock)) continue;
    await store
      .update(
        '',
        crd.metadata?.name ?? '',
        (current) => {
          const next = current as unknown as CustomResourceDefinition;
          decide(next, all, clock);
          return next as unknown as KubeObject;
        },
        { dryRun: false, subresource: 'status' },
      )
      .catch((err: unknown) => {
        // a CRD deleted meanwhile needs no status
        if ((err as { code?: number }).code !== 404) throw err;
      });
  }
}

/** Applies the naming decision to `crd` in place; true when its status changed. */
function decide(crd: CustomResourceDefinition, all: readonly CustomResourceDefinition[], clock: Clock): boolean {
  const d = decideNames(crd, all);
  const status = (crd.status ??= {} as NonNullable<CustomResourceDefinition['status']>);
  const conditions = (status.conditions ??= []);
  const stamp = formatTime(new Date(clock.now()));
  let changed = JSON.stringify(status.acceptedNames) !== JSON.stringify(d.acceptedNames);
  status.acceptedNames = d.acceptedNames;
  changed = setCondition(conditions, d.namesAccepted, stamp) || changed;
  changed = setCondition(conditions, d.established, stamp) || changed;
  return changed;
}
