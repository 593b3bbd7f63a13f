import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { labelSelectorFromObject, type Selector } from '../../../machinery/labels/index.js';

/** The PodDisruptionBudgets that would be broken by evicting a pod. */
export class PdbBudget {
  private readonly entries: { ns: string; selector: Selector; allowed: number }[];

  constructor(pdbs: readonly PodDisruptionBudget[]) {
    this.entries = pdbs.map((p) => ({
      ns: p.metadata?.namespace ?? 'default',
      // policy/v1: an empty selector selects every pod in the namespace.
      selector: labelSelectorFromObject(p.spec?.selector ?? {}),
      allowed: p.status?.disruptionsAllowed ?? 0,
    }));
  }

  /** Whether this pod is covered by a budget with nothing left. */
  wouldViolate(pod: Pod): boolean {
    const ns = pod.metadata?.namespace ?? 'default';
    return this.entries.some((e) => e.ns === ns && e.selector.matches(pod.metadata?.labels) && e.allowed <= 0);
  }
}
