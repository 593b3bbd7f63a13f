import type { DaemonSet, Deployment, ReplicaSet, StatefulSet, StatefulSetSpec } from 'kubernetes-types/apps/v1.js';
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import { setPersistentVolumeClaimDefaults } from './storage.js';
import { setPodTemplateDefaults } from './pod-spec.js';

/** apps/v1 SetDefaults_Deployment. */
export function setDeploymentDefaults(d: Deployment): void {
  const spec = (d.spec ??= { selector: {}, template: {} });
  spec.replicas ??= 1;
  const strategy = (spec.strategy ??= {});
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = (strategy.rollingUpdate ??= {});
    ru.maxUnavailable ??= '25%';
    ru.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  setPodTemplateDefaults(spec.template);
}

export function setReplicaSetDefaults(rs: ReplicaSet): void {
  const spec = (rs.spec ??= { selector: {} });
  spec.replicas ??= 1;
  setPodTemplateDefaults(spec.template);
}

/** core/v1 SetDefaults_ReplicationController: selector and labels from the template's labels when empty. */
export function setReplicationControllerDefaults(rc: ReplicationController): void {
  const spec = (rc.spec ??= {});
  const labels = spec.template?.metadata?.labels;
  if (labels) {
    if (Object.keys(spec.selector ?? {}).length === 0) spec.selector = { ...labels };
    const meta = (rc.metadata ??= {});
    if (Object.keys(meta.labels ?? {}).length === 0) meta.labels = { ...labels };
  }
  spec.replicas ??= 1;
  if (spec.template) setPodTemplateDefaults(spec.template);
}

export function setStatefulSetDefaults(sts: StatefulSet): void {
  const spec = (sts.spec ??= { selector: {}, template: {} } as StatefulSetSpec);
  spec.podManagementPolicy ||= 'OrderedReady';
  const us = (spec.updateStrategy ??= {});
  if (!us.type) {
    us.type = 'RollingUpdate';
    us.rollingUpdate ??= {};
  }
  if (us.type === 'RollingUpdate' && us.rollingUpdate) us.rollingUpdate.partition ??= 0;
  const retention = (spec.persistentVolumeClaimRetentionPolicy ??= {});
  retention.whenDeleted ||= 'Retain';
  retention.whenScaled ||= 'Retain';
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  setPodTemplateDefaults(spec.template);
  for (const claim of spec.volumeClaimTemplates ?? []) setPersistentVolumeClaimDefaults(claim);
}

export function setDaemonSetDefaults(ds: DaemonSet): void {
  const spec = (ds.spec ??= { selector: {}, template: {} });
  const us = (spec.updateStrategy ??= {});
  us.type ||= 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = (us.rollingUpdate ??= {});
    ru.maxUnavailable ??= 1;
    ru.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  setPodTemplateDefaults(spec.template);
}
