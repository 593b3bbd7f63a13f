import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';

/** Built-in classes the API server would create; known here so they resolve before they exist. */
const SYSTEM_CLASSES: Record<string, number> = {
  'system-cluster-critical': 2_000_000_000,
  'system-node-critical': 2_000_001_000,
};

/**
 * Fills spec.priority (and preemptionPolicy) from the pod's PriorityClass, or
 * the global default class, when the API server's Priority admission has not
 * done it. Returns the pod itself when nothing changes, else a shallow copy
 * (cached pods are read-only).
 */
export function withResolvedPriority(pod: Pod, classes: { get(name: string): PriorityClass | undefined; list(): PriorityClass[] }): Pod {
  if (pod.spec?.priority !== undefined && pod.spec.priority !== null) return pod;
  const name = pod.spec?.priorityClassName;
  let pc: PriorityClass | undefined;
  let value: number | undefined;
  if (name) {
    pc = classes.get(name);
    value = pc?.value ?? SYSTEM_CLASSES[name];
  } else {
    pc = classes.list().find((c) => c.globalDefault);
    value = pc?.value;
  }
  if (value === undefined) return pod;
  const preemptionPolicy = pod.spec?.preemptionPolicy ?? pc?.preemptionPolicy;
  return { ...pod, spec: { ...pod.spec!, priority: value, ...(preemptionPolicy ? { preemptionPolicy } : {}) } };
}
