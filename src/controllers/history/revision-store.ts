import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { ResourceClient } from '../../client/rest/resource-client.js';
import { isAlreadyExists } from '../../client/rest/error-predicates.js';
import { newControllerRevision, nextRevisionNumber, sameRevisionData, sortRevisions, type RevisionOwner } from './controller-revision.js';

export interface UpdateRevision {
  /** The revision matching the owner's current template. */
  revision: ControllerRevision;
  /** Every revision of the owner after the change (oldest first). */
  revisions: ControllerRevision[];
  /** Bumped when a hash collided with a revision holding other data; persist it in status. */
  collisionCount: number;
}

/**
 * Finds or makes the revision for the owner's current template, as upstream's
 * DaemonSet and StatefulSet controllers do: an equal latest revision is
 * reused, an equal older one is renumbered to be the latest (a rollback), and
 * otherwise a new one is created, probing with collisionCount on a name clash.
 */
export async function ensureUpdateRevision(
  revisions: ResourceClient<ControllerRevision>,
  owner: RevisionOwner,
  ownerRef: OwnerReference,
  existing: readonly ControllerRevision[],
  collisionCount: number,
): Promise<UpdateRevision> {
  const sorted = sortRevisions(existing);
  const next = nextRevisionNumber(sorted);
  let candidate = newControllerRevision(owner, ownerRef, next, collisionCount);
  const equal = sorted.filter((r) => sameRevisionData(r, candidate));
  const latest = sorted.at(-1);
  if (equal.length > 0) {
    const match = equal.at(-1)!;
    if (match === latest) return { revision: match, revisions: sorted, collisionCount };
    const renumbered = await revisions.update({ ...match, revision: next });
    return { revision: renumbered, revisions: sortRevisions([...sorted.filter((r) => r !== match), renumbered]), collisionCount };
  }
  for (;;) {
    try {
      const created = await revisions.create(candidate);
      return { revision: created, revisions: [...sorted, created], collisionCount };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const clash = await revisions.get(candidate.metadata!.name!);
      const ours = clash.metadata?.ownerReferences?.some((r) => r.uid === ownerRef.uid);
      if (ours && sameRevisionData(clash, candidate)) return { revision: clash, revisions: sortRevisions([...sorted, clash]), collisionCount };
      collisionCount++;
      candidate = newControllerRevision(owner, ownerRef, next, collisionCount);
    }
  }
}
