import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import { REPLICATION_CONTROLLERS } from '../../api/resource-refs.js';
import { selectorFromSet } from '../../machinery/labels/index.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { replicatedController } from '../replicaset/replicated-controller.js';
import type { ReplicatedKind } from '../replicaset/replicated-kind.js';

/** core/v1 ReplicationControllers: the ReplicaSet logic over a plain-map selector (upstream's replication manager). */
export const REPLICATION_CONTROLLER_KIND: ReplicatedKind<ReplicationController> = {
  name: 'replicationcontroller',
  kind: 'ReplicationController',
  apiVersion: 'v1',
  resource: REPLICATION_CONTROLLERS,
  component: 'replication-controller',
  selector: (rc) => selectorFromSet(rc.spec?.selector ?? {}),
};

export const controller: ControllerDescriptor = replicatedController(REPLICATION_CONTROLLER_KIND);
