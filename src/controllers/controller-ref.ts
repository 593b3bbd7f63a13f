import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { ApiObject } from '../client/rest/api-object.js';

/** The ownerReference with controller=true, if any. */
export function controllerRefOf(obj: ApiObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** A controller ownerReference to `owner` that blocks the owner's foreground deletion. */
export function newControllerRef(owner: ApiObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
}
