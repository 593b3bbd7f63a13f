import type { CustomResourceSubresourceScale } from 'kubernetes-types/apiextensions/v1.js';
import type { KubeObject } from '../../api/object.js';
import { jsonPathFind } from './simple-json-path.js';

/**
 * The autoscaling/v1 Scale of a custom resource, read and written through
 * the CRD's specReplicasPath, statusReplicasPath and labelSelectorPath.
 */
export function customResourceScale(obj: KubeObject, paths: CustomResourceSubresourceScale): KubeObject {
  const meta = obj.metadata ?? {};
  const spec = jsonPathFind(obj, paths.specReplicasPath)[0];
  const status = jsonPathFind(obj, paths.statusReplicasPath)[0];
  const selector = paths.labelSelectorPath ? jsonPathFind(obj, paths.labelSelectorPath)[0] : undefined;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp },
    spec: { replicas: typeof spec === 'number' ? spec : 0 },
    status: { replicas: typeof status === 'number' ? status : 0, ...(typeof selector === 'string' ? { selector } : {}) },
  };
}

/** A copy of `obj` with `replicas` at the spec replicas path (created if missing). */
export function withCustomResourceReplicas(obj: KubeObject, paths: CustomResourceSubresourceScale, replicas: number): KubeObject {
  const next = structuredClone(obj) as Record<string, unknown>;
  const keys = paths.specReplicasPath.replace(/^\./, '').split('.');
  let cur = next;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]] = replicas;
  return next as KubeObject;
}
