import type { CycleState } from '../../framework/cycle-state.js';
import type { PluginFactory, ScorePlugin } from '../../framework/interface.js';
import { MAX_NODE_SCORE } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { DEFAULT_RESOURCES, requestedAndAllocatable, type ResourceSpec } from '../node-resources-fit/resource-allocation.js';

export const NAME = 'NodeResourcesBalancedAllocation';

/** Prefers nodes whose resources stay evenly used: score = (1 − std dev of the usage fractions) × 100. */
export class NodeResourcesBalancedAllocation implements ScorePlugin {
  readonly name = NAME;

  constructor(private readonly resources: readonly ResourceSpec[] = DEFAULT_RESOURCES) {}

  score(_state: CycleState, pod: PodInfo, node: NodeInfo): number {
    const fractions: number[] = [];
    for (const r of this.resources) {
      const { requested, allocatable } = requestedAndAllocatable(node, pod, r.name, false);
      if (allocatable === 0) continue;
      fractions.push(Math.min(1, requested / allocatable));
    }
    if (fractions.length === 0) return 0;
    let std = 0;
    if (fractions.length === 2) {
      std = Math.abs(fractions[0] - fractions[1]) / 2;
    } else if (fractions.length > 2) {
      const mean = fractions.reduce((a, b) => a + b, 0) / fractions.length;
      std = Math.sqrt(fractions.reduce((a, f) => a + (f - mean) ** 2, 0) / fractions.length);
    }
    return Math.floor((1 - std) * MAX_NODE_SCORE);
  }
}

export const factory: PluginFactory = (args) => new NodeResourcesBalancedAllocation((args as { resources?: ResourceSpec[] }).resources);
