import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { KubeObject } from '../../api/object.js';
import type { Logger } from '../../machinery/logger.js';
import { formatTime } from '../../machinery/time.js';
import type { RegistryStore } from '../registry/registry-store.js';
import { watchObjects } from '../registry/watch.js';
import { decideNames, setCondition } from './crd-names.js';

export interface CrdControllerOptions {
  /** The customresourcedefinitions store. */
  store: RegistryStore;
  logger: Logger;
  signal: AbortSignal;
  now?: () => Date;
  /** Called after a CRD's names or existence changed (the serving side re-reads it). */
  onChange?: (crd: CustomResourceDefinition | undefined, name: string) => void | Promise<void>;
}

/**
 * Keeps every CRD's `status.acceptedNames` and its NamesAccepted and
 * Established conditions true to the naming rules. Level triggered: any
 * change of a CRD re-decides its whole group, because freeing or taking a
 * name can change a sibling's outcome. Restarts its watch on failure.
 */
export async function runCrdController(opts: CrdControllerOptions): Promise<void> {
  const now = opts.now ?? (() => new Date());
  let backoffMs = 100;
  while (!opts.signal.aborted) {
    try {
      for await (const ev of watchObjects(opts.store, '', { signal: opts.signal })) {
        const crd = ev.object as unknown as CustomResourceDefinition;
        await reconcileGroup(opts.store, crd.spec?.group ?? '', now);
        await opts.onChange?.(ev.type === 'DELETED' ? undefined : crd, crd.metadata?.name ?? '');
        backoffMs = 100;
      }
    } catch (err) {
      if (opts.signal.aborted) return;
      opts.logger.warn('CRD controller restarting', { error: err instanceof Error ? err.message : String(err) });
      await sleep(backoffMs * (1 + Math.random() * 0.5), opts.signal);
      backoffMs = Math.min(backoffMs * 2, 5000);
    }
  }
}

/** Re-decides the names of every CRD of a group; writes only what changed. */
export async function reconcileGroup(store: RegistryStore, group: string, now: () => Date): Promise<void> {
  const all = (await store.list('', {})).items as unknown as CustomResourceDefinition[];
  for (const crd of all.filter((c) => c.spec?.group === group)) {
    if (!decide(structuredClone(crd), all, now)) continue;
    await store
      .update(
        '',
        crd.metadata?.name ?? '',
        (current) => {
          const next = current as unknown as CustomResourceDefinition;
          decide(next, all, now);
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
function decide(crd: CustomResourceDefinition, all: readonly CustomResourceDefinition[], now: () => Date): boolean {
  const d = decideNames(crd, all);
  const status = (crd.status ??= {} as NonNullable<CustomResourceDefinition['status']>);
  const conditions = (status.conditions ??= []);
  const stamp = formatTime(now());
  let changed = JSON.stringify(status.acceptedNames) !== JSON.stringify(d.acceptedNames);
  status.acceptedNames = d.acceptedNames;
  changed = setCondition(conditions, d.namesAccepted, stamp) || changed;
  changed = setCondition(conditions, d.established, stamp) || changed;
  return changed;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
