import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { asKind, type KubeObject } from '../../api/object.js';
import { ApiError, forbidden } from '../../machinery/api-error.js';
import type { ApiRegistry } from '../api-registry.js';

/** The classes every cluster has (upstream creates them at start-up). */
export const SYSTEM_PRIORITY_CLASSES = [
  { name: 'system-node-critical', value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

/**
 * Priority admission: a new pod gets `spec.priority` (and preemptionPolicy)
 * from its priorityClassName, or from the global default class, or 0.
 */
export async function admitPodPriority(registry: ApiRegistry, obj: KubeObject): Promise<void> {
  const pod = asKind<Pod>(obj);
  const spec = pod.spec;
  if (!spec) return;
  const classes = registry.lookup('scheduling.k8s.io', 'v1', 'priorityclasses')!;
  let pc: PriorityClass | undefined;
  if (spec.priorityClassName) {
    try {
      pc = asKind<PriorityClass>(await classes.get('', spec.priorityClassName)) as PriorityClass;
    } catch (err) {
      if (!ApiError.is(err, 'NotFound')) throw err;
      throw forbidden(`pods "${pod.metadata?.name ?? ''}" is forbidden: no PriorityClass with name ${spec.priorityClassName} was found`);
    }
  } else {
    const list = await classes.list('', {});
    pc = list.items.map((i) => asKind<PriorityClass>(i) as PriorityClass).find((c) => c.globalDefault);
    if (pc) spec.priorityClassName = pc.metadata?.name;
  }
  const value = pc?.value ?? 0;
  if (spec.priority !== undefined && spec.priority !== value) {
    throw forbidden(`pods "${pod.metadata?.name ?? ''}" is forbidden: the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`);
  }
  spec.priority = value;
  spec.preemptionPolicy ??= pc?.preemptionPolicy ?? 'PreemptLowerPriority';
}
