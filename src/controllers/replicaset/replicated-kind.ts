import type { ReplicaSet, ReplicaSetCondition } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { REPLICA_SETS, type ResourceRef } from '../../api/resource-refs.js';
import type { ApiObject } from '../../client/rest/api-object.js';
import { labelSelectorFromObject, type Selector } from '../../machinery/labels/index.js';

/** The status a replicated workload reports (ReplicaSetStatus and ReplicationControllerStatus have these fields). */
export interface ReplicatedStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  /** ReplicationControllerCondition has the same fields. */
  conditions?: ReplicaSetCondition[];
}

/** What the replica controller reads of an owner: a ReplicaSet or a ReplicationController. */
export interface Replicated extends ApiObject {
  spec?: { replicas?: number; minReadySeconds?: number; template?: PodTemplateSpec };
  status?: ReplicatedStatus;
}

/**
 * What differs between the kinds one replica controller keeps pods for
 * (upstream runs its ReplicaSet controller for ReplicationControllers too,
 * through conversion): the owner's type and resource, the selector's form
 * and the name events are reported under.
 */
export interface ReplicatedKind<T extends Replicated> {
  /** The controller's name in kube-controller-manager (`--controllers`). */
  readonly name: string;
  readonly kind: string;
  readonly apiVersion: string;
  readonly resource: ResourceRef;
  /** The event source component. */
  readonly component: string;
  /** The owner's pod selector; throws when it cannot be parsed. */
  selector(owner: T): Selector;
}

export const REPLICA_SET_KIND: ReplicatedKind<ReplicaSet> = {
  name: 'replicaset',
  kind: 'ReplicaSet',
  apiVersion: 'apps/v1',
  resource: REPLICA_SETS,
  component: 'replicaset-controller',
  selector: (rs) => labelSelectorFromObject(rs.spec?.selector),
};
