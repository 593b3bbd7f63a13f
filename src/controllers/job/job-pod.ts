import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { newControllerRef } from '../controller-ref.js';
import { JOB_COMPLETION_INDEX_ANNOTATION } from './completion-index.js';

/** Keeps finished pods around until the controller has counted them in the Job's status. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';

function withIndexEnv(c: Container): Container {
  const env = (c.env ?? []).filter((e) => e.name !== 'JOB_COMPLETION_INDEX');
  env.push({ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${JOB_COMPLETION_INDEX_ANNOTATION}']` } } });
  return { ...c, env };
}

/**
 * A pod from the Job's template, controlled by the Job and carrying the
 * tracking finalizer. Indexed Jobs' pods carry their index (annotation,
 * label, JOB_COMPLETION_INDEX) and the hostname `<job>-<index>`.
 */
export function newJobPod(job: Job, index?: number): Pod {
  const template = structuredClone(job.spec?.template ?? {});
  const name = job.metadata?.name ?? '';
  const meta = template.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: index === undefined ? `${name}-` : `${name}-${index}-`,
      namespace: job.metadata?.namespace,
      labels: { ...(meta.labels ?? {}) },
      annotations: { ...(meta.annotations ?? {}) },
      ownerReferences: [newControllerRef(job, 'batch/v1', 'Job')],
      finalizers: [...(meta.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER), JOB_TRACKING_FINALIZER],
    },
    spec: template.spec ?? { containers: [] },
  };
  if (index !== undefined) {
    pod.metadata!.annotations![JOB_COMPLETION_INDEX_ANNOTATION] = String(index);
    pod.metadata!.labels![JOB_COMPLETION_INDEX_ANNOTATION] = String(index);
    const spec = pod.spec!;
    spec.hostname = `${name}-${index}`;
    spec.containers = spec.containers.map(withIndexEnv);
    if (spec.initContainers) spec.initContainers = spec.initContainers.map(withIndexEnv);
  }
  return pod;
}
