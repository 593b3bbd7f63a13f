import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { asKind } from '../../api/object.js';
import { ApiError } from '../../machinery/api-error.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes, MutatingAdmission, Operation } from './admission.js';
import { admissionForbidden } from './forbidden.js';

/** The classes every cluster has (upstream creates them at start-up). */
export const SYSTEM_PRIORITY_CLASSES = [
  { name: 'system-node-critical', value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

/**
 * Priority admission: a new pod gets `spec.priority` (and preemptionPolicy)
 * from its priorityClassName, or from the global default class, or 0; an
 * update keeps the priority the pod has.
 */
export class Priority implements MutatingAdmission {
  readonly name = 'Priority';

  constructor(private readonly priorityClasses: () => RegistryStore) {}

  handles(operation: Operation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.resource !== 'pods' || attrs.subresource || !attrs.object) return;
    const spec = asKind<Pod>(attrs.object).spec;
    if (!spec) return;
    if (attrs.operation === 'UPDATE') {
      const old = attrs.oldObject ? asKind<Pod>(attrs.oldObject).spec : undefined;
      if (spec.priority === undefined && old?.priority !== undefined) spec.priority = old.priority;
      if (spec.preemptionPolicy === undefined && old?.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    const pc = await this.classFor(attrs, spec.priorityClassName);
    if (!spec.priorityClassName && pc) spec.priorityClassName = pc.metadata?.name;
    const value = pc?.value ?? 0;
    if (spec.priority !== undefined && spec.priority !== value) {
      throw admissionForbidden(
        attrs,
        `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`,
      );
    }
    spec.priority = value;
    spec.preemptionPolicy ??= pc?.preemptionPolicy ?? 'PreemptLowerPriority';
  }

  /** The named class, or the global default when none is named. */
  private async classFor(attrs: AdmissionAttributes, name: string | undefined): Promise<PriorityClass | undefined> {
    const classes = this.priorityClasses();
    if (!name) {
      const list = await classes.list('', {});
      return list.items.map((i) => asKind<PriorityClass>(i) as PriorityClass).find((c) => c.globalDefault);
    }
    try {
      return asKind<PriorityClass>(await classes.get('', name)) as PriorityClass;
    } catch (err) {
      if (!ApiError.is(err, 'NotFound')) throw err;
      throw admissionForbidden(attrs, `no PriorityClass with name ${name} was found`);
    }
  }
}
