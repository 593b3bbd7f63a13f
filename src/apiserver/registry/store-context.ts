import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import { invalid } from '../../machinery/invalid.js';
import type { ListSchema } from '../../machinery/managedfields/index.js';
import type { KeyValue, Storage } from '../../storage/storage.js';
import type { RequestTrace } from '../trace/request-trace.js';
import type { Strategy } from './strategy.js';
import type { WriteAdmission } from './write-admission.js';
import type { Clock } from '../../base/clock.js';

export type Filter = (obj: KubeObject) => boolean;

export interface ListParams {
  filter?: Filter;
  /** The filter on a stored object without decoding it per list (the selection's); lets a filtered list stay raw. */
  kvFilter?: (kv: KeyValue) => boolean;
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
  /** The request's trace when it is recorded: validation and the storage commit record into it. */
  trace?: RequestTrace;
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

/** How many times a write re-reads after losing a compare-and-swap before it gives up with 409. */
export const MAX_GUARANTEED_UPDATE_ATTEMPTS = 32;

/** What the create, update, delete and list paths of a RegistryStore share. */
export interface StoreContext {
  readonly info: ResourceInfo;
  readonly strategy: Strategy;
  readonly storage: Storage;
  readonly clock: Clock;
  readonly listSchema: ListSchema;
  readonly groupResource: { group: string; resource: string };
  key(namespace: string, name: string): string;
  prefix(namespace: string): string;
}

/** 422 with every error the strategy found. */
export function throwIfInvalid(ctx: StoreContext, obj: KubeObject, errors: ReturnType<Strategy['validate']>): void {
  if (errors.length > 0) throw invalid({ group: ctx.info.group, kind: ctx.info.kind }, obj.metadata?.name ?? '', errors);
}
