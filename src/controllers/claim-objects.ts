import type { ApiObject } from '../client/rest/api-object.js';
import type { ResourceClient } from '../client/rest/resource-client.js';
import { isNotFound } from '../client/rest/error-predicates.js';
import type { Selector } from '../machinery/labels/index.js';
import { controllerRefOf, newControllerRef } from './controller-ref.js';

export interface ClaimOptions<T extends ApiObject> {
  /** The would-be controller, as cached. */
  owner: ApiObject;
  ownerApiVersion: string;
  ownerKind: string;
  selector: Selector;
  /** Patches the candidates (bound to the owner's namespace). */
  client: ResourceClient<T>;
  /**
   * A fresh read of the owner; adoption is refused if it is gone, replaced
   * (other uid) or being deleted, since the cache may be stale (upstream's
   * RecheckDeletionTimestamp). Called at most once, only when adopting.
   */
  recheckOwner: () => Promise<ApiObject>;
  fieldManager?: string;
}

/** The owner cannot adopt: it is gone, replaced or being deleted. */
export class AdoptionRefusedError extends Error {
  override readonly name = 'AdoptionRefusedError';
}

/**
 * Upstream's ControllerRefManager.ClaimObjects: keeps the objects this owner
 * controls and still selects, adopts orphans it selects (adding a controller
 * ownerReference), and releases objects it controls but no longer selects.
 * Returns the claimed objects; throws the first adopt/release failure after
 * trying all.
 */
export async function claimObjects<T extends ApiObject>(candidates: readonly T[], o: ClaimOptions<T>): Promise<T[]> {
  const uid = o.owner.metadata?.uid;
  const ownerDeleting = !!o.owner.metadata?.deletionTimestamp;
  const claimed: T[] = [];
  let firstError: unknown;
  let adoptable: Promise<void> | undefined;
  const canAdopt = (): Promise<void> =>
    (adoptable ??= o.recheckOwner().then((fresh) => {
      if (fresh.metadata?.uid !== uid) throw new AdoptionRefusedError(`original ${o.ownerKind} ${o.owner.metadata?.name} is gone: got uid ${fresh.metadata?.uid}, wanted ${uid}`);
      if (fresh.metadata?.deletionTimestamp) throw new AdoptionRefusedError(`${o.ownerKind} ${o.owner.metadata?.name} has just been deleted`);
    }));

  await Promise.all(
    candidates.map(async (obj) => {
      const ref = controllerRefOf(obj);
      const labels = obj.metadata?.labels ?? {};
      try {
        if (ref) {
          if (ref.uid !== uid) return;
          if (o.selector.matches(labels)) claimed.push(obj);
          else if (!ownerDeleting) await release(obj);
          return;
        }
        if (ownerDeleting || !o.selector.matches(labels) || obj.metadata?.deletionTimestamp) return;
        await canAdopt();
        claimed.push(await adopt(obj));
      } catch (err) {
        if (isNotFound(err)) return;
        firstError ??= err;
      }
    }),
  );
  if (firstError !== undefined) throw firstError;
  return claimed;

  async function adopt(obj: T): Promise<T> {
    const ref = newControllerRef(o.owner, o.ownerApiVersion, o.ownerKind);
    const refs = obj.metadata?.ownerReferences;
    // The uid test makes the patch fail rather than adopt a same-named replacement.
    const patch = [
      { op: 'test', path: '/metadata/uid', value: obj.metadata?.uid },
      refs ? { op: 'add', path: '/metadata/ownerReferences/-', value: ref } : { op: 'add', path: '/metadata/ownerReferences', value: [ref] },
    ];
    return o.client.patch(obj.metadata?.name ?? '', patch, 'json', { fieldManager: o.fieldManager });
  }

  async function release(obj: T): Promise<void> {
    const refs = obj.metadata?.ownerReferences ?? [];
    const i = refs.findIndex((r) => r.uid === uid);
    if (i < 0) return;
    const patch = [
      { op: 'test', path: `/metadata/ownerReferences/${i}/uid`, value: uid },
      { op: 'remove', path: `/metadata/ownerReferences/${i}` },
    ];
    await o.client.patch(obj.metadata?.name ?? '', patch, 'json', { fieldManager: o.fieldManager });
  }
}
