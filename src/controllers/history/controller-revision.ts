import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { revisionHash, stableStringify } from './revision-hash.js';

/** Label naming the revision a pod (and a ControllerRevision) belongs to. */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

/** What a workload contributes to its revisions: identity, owner reference and template. */
export interface RevisionOwner {
  metadata?: ObjectMeta;
  spec?: { template?: PodTemplateSpec };
}

/**
 * The data a revision stores: a strategic-merge patch replacing the template,
 * the shape upstream's DaemonSet and StatefulSet controllers store, so
 * `kubectl rollout history --revision=N` renders it.
 */
export function revisionData(template: PodTemplateSpec | undefined): Record<string, unknown> {
  return { spec: { template: { ...(template ?? {}), $patch: 'replace' } } };
}

/** The template a revision's data holds (the inverse of revisionData). */
export function templateOfRevision(rev: ControllerRevision): PodTemplateSpec {
  const data = rev.data as { spec?: { template?: PodTemplateSpec & { $patch?: string } } } | undefined;
  const { $patch: _ignored, ...template } = data?.spec?.template ?? {};
  return template;
}

export function sameRevisionData(a: ControllerRevision, b: ControllerRevision): boolean {
  return stableStringify(a.data) === stableStringify(b.data);
}

/** A new revision object `<owner>-<hash>` labelled with the template labels plus the hash. */
export function newControllerRevision(owner: RevisionOwner, ownerRef: OwnerReference, revision: number, collisionCount?: number): ControllerRevision {
  const data = revisionData(owner.spec?.template);
  const hash = revisionHash(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${owner.metadata?.name ?? ''}-${hash}`,
      namespace: owner.metadata?.namespace,
      labels: { ...(owner.spec?.template?.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ownerReferences: [ownerRef],
    },
    data,
    revision,
  };
}

/** The hash part of a revision's name (its label, or the suffix of its name). */
export function hashOfRevision(rev: ControllerRevision): string {
  return rev.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? rev.metadata?.name?.split('-').pop() ?? '';
}

export function nextRevisionNumber(revisions: readonly ControllerRevision[]): number {
  return revisions.reduce((max, r) => Math.max(max, r.revision), 0) + 1;
}

/** Oldest first, by revision number then name. */
export function sortRevisions(revisions: readonly ControllerRevision[]): ControllerRevision[] {
  return [...revisions].sort((a, b) => a.revision - b.revision || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

/**
 * Revisions to delete so that at most `limit` revisions not in use remain;
 * those named in `live` (the current and update revisions, revisions pods
 * still run) are never chosen.
 */
export function revisionsToTruncate(revisions: readonly ControllerRevision[], live: ReadonlySet<string>, limit: number): ControllerRevision[] {
  const history = sortRevisions(revisions).filter((r) => !live.has(r.metadata?.name ?? ''));
  return history.slice(0, Math.max(0, history.length - Math.max(0, limit)));
}
