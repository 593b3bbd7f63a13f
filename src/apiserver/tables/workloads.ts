import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import { parseApiVersion } from '../../api/object.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, fieldColumn } from './columns.js';
import { containerCells, controllerOf, formatLabels } from './format.js';
import { SelectorParseError, formatLabelSelector, labelSelectorAsString } from '../../machinery/labels/index.js';
import { column, convertor } from './table-convertor.js';

/** Tables for the apps group: deployments, replica sets, stateful sets, daemon sets, controller revisions. */

/** Replica counts default to 1 when unset, as API defaulting does. */
function desired(replicas: number | undefined): number {
  return replicas ?? 1;
}

const READY_PODS_DOC = 'Number of the pod with ready state';

export const deploymentTable = convertor<Deployment>(
  [
    NAME_COLUMN,
    column('Ready', 'string', READY_PODS_DOC),
    fieldColumn('Up-to-date', 'string', 'DeploymentStatus.updatedReplicas'),
    fieldColumn('Available', 'string', 'DeploymentStatus.availableReplicas'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn('Selector', 'string', 'DeploymentSpec.selector', 1),
  ],
  (d, now) => {
    const [names, images] = containerCells(d.spec?.template?.spec?.containers);
    let selector: string;
    try {
      // Deployments print the raw selector string, empty rather than `<none>`.
      selector = labelSelectorAsString(d.spec?.selector);
    } catch (err) {
      if (!(err instanceof SelectorParseError)) throw err;
      selector = '<invalid>';
    }
    return [
      d.metadata?.name ?? '',
      `${d.status?.readyReplicas ?? 0}/${desired(d.spec?.replicas)}`,
      d.status?.updatedReplicas ?? 0,
      d.status?.availableReplicas ?? 0,
      translateTimestampSince(d.metadata?.creationTimestamp, now),
      names,
      images,
      selector,
    ];
  },
);

export const replicaSetTable = convertor<ReplicaSet>(
  [
    NAME_COLUMN,
    fieldColumn('Desired', 'integer', 'ReplicaSetSpec.replicas'),
    fieldColumn('Current', 'integer', 'ReplicaSetStatus.replicas'),
    fieldColumn('Ready', 'integer', 'ReplicaSetStatus.readyReplicas'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn('Selector', 'string', 'ReplicaSetSpec.selector', 1),
  ],
  (rs, now) => {
    const [names, images] = containerCells(rs.spec?.template?.spec?.containers);
    return [
      rs.metadata?.name ?? '',
      desired(rs.spec?.replicas),
      rs.status?.replicas ?? 0,
      rs.status?.readyReplicas ?? 0,
      translateTimestampSince(rs.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(rs.spec?.selector),
    ];
  },
);

/** core/v1 ReplicationControllers print as ReplicaSets do, with their plain-map selector. */
export const replicationControllerTable = convertor<ReplicationController>(
  [
    NAME_COLUMN,
    fieldColumn('Desired', 'integer', 'ReplicationControllerSpec.replicas'),
    fieldColumn('Current', 'integer', 'ReplicationControllerStatus.replicas'),
    fieldColumn('Ready', 'integer', 'ReplicationControllerStatus.readyReplicas'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn('Selector', 'string', 'ReplicationControllerSpec.selector', 1),
  ],
  (rc, now) => {
    const [names, images] = containerCells(rc.spec?.template?.spec?.containers);
    return [
      rc.metadata?.name ?? '',
      desired(rc.spec?.replicas),
      rc.status?.replicas ?? 0,
      rc.status?.readyReplicas ?? 0,
      translateTimestampSince(rc.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabels(rc.spec?.selector),
    ];
  },
);

export const statefulSetTable = convertor<StatefulSet>(
  [NAME_COLUMN, column('Ready', 'string', READY_PODS_DOC), AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN],
  (sts, now) => {
    const [names, images] = containerCells(sts.spec?.template?.spec?.containers);
    return [
      sts.metadata?.name ?? '',
      `${sts.status?.readyReplicas ?? 0}/${desired(sts.spec?.replicas)}`,
      translateTimestampSince(sts.metadata?.creationTimestamp, now),
      names,
      images,
    ];
  },
);

export const daemonSetTable = convertor<DaemonSet>(
  [
    NAME_COLUMN,
    fieldColumn('Desired', 'integer', 'DaemonSetStatus.desiredNumberScheduled'),
    fieldColumn('Current', 'integer', 'DaemonSetStatus.currentNumberScheduled'),
    fieldColumn('Ready', 'integer', 'DaemonSetStatus.numberReady'),
    fieldColumn('Up-to-date', 'integer', 'DaemonSetStatus.updatedNumberScheduled'),
    fieldColumn('Available', 'integer', 'DaemonSetStatus.numberAvailable'),
    fieldColumn('Node Selector', 'string', 'PodSpec.nodeSelector'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn('Selector', 'string', 'DaemonSetSpec.selector', 1),
  ],
  (ds, now) => {
    const [names, images] = containerCells(ds.spec?.template?.spec?.containers);
    const st = ds.status;
    return [
      ds.metadata?.name ?? '',
      st?.desiredNumberScheduled ?? 0,
      st?.currentNumberScheduled ?? 0,
      st?.numberReady ?? 0,
      st?.updatedNumberScheduled ?? 0,
      st?.numberAvailable ?? 0,
      formatLabels(ds.spec?.template?.spec?.nodeSelector),
      translateTimestampSince(ds.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(ds.spec?.selector),
    ];
  },
);

/** `statefulset.apps/web`: the controller's kind (and group) lower-cased, then its name. */
function controllerName(rev: ControllerRevision): string {
  const ref = controllerOf(rev.metadata?.ownerReferences);
  if (!ref) return '<none>';
  const { group } = parseApiVersion(ref.apiVersion ?? '');
  const kind = group ? `${ref.kind}.${group}` : ref.kind;
  return kind ? `${kind.toLowerCase()}/${ref.name}` : ref.name;
}

export const controllerRevisionTable = convertor<ControllerRevision>(
  [
    NAME_COLUMN,
    column('Controller', 'string', 'Controller of the object'),
    fieldColumn('Revision', 'string', 'ControllerRevision.revision'),
    AGE_COLUMN,
  ],
  (rev, now) => [rev.metadata?.name ?? '', controllerName(rev), rev.revision ?? 0, translateTimestampSince(rev.metadata?.creationTimestamp, now)],
);
