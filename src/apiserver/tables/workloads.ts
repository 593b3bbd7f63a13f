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

/** What ReplicaSets and ReplicationControllers share for printing. */
type Replicated = ReplicaSet | ReplicationController;

/**
 * ReplicaSets and ReplicationControllers print alike (upstream's
 * printReplicaSet and printReplicationController); only the selector's form
 * differs (a label selector or a plain map).
 */
function replicatedTable<T extends Replicated>(kind: 'ReplicaSet' | 'ReplicationController', selector: (o: T) => string) {
  return convertor<T>(
    [
      NAME_COLUMN,
      fieldColumn('Desired', 'integer', `${kind}Spec.replicas` as const),
      fieldColumn('Current', 'integer', `${kind}Status.replicas` as const),
      fieldColumn('Ready', 'integer', `${kind}Status.readyReplicas` as const),
      AGE_COLUMN,
      CONTAINERS_COLUMN,
      IMAGES_COLUMN,
      fieldColumn('Selector', 'string', `${kind}Spec.selector` as const, 1),
    ],
    (o, now) => {
      const [names, images] = containerCells(o.spec?.template?.spec?.containers);
      return [
        o.metadata?.name ?? '',
        desired(o.spec?.replicas),
        o.status?.replicas ?? 0,
        o.status?.readyReplicas ?? 0,
        translateTimestampSince(o.metadata?.creationTimestamp, now),
        names,
        images,
        selector(o),
      ];
    },
  );
}

export const replicaSetTable = replicatedTable<ReplicaSet>('ReplicaSet', (rs) => formatLabelSelector(rs.spec?.selector));

export const replicationControllerTable = replicatedTable<ReplicationController>('ReplicationController', (rc) => formatLabels(rc.spec?.selector));

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
