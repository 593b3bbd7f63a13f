import type { CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, EnqueueExtensions, FilterPlugin, PluginFactory, PreFilterPlugin, ScorePlugin } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { Code, Status } from '../../framework/status.js';
import { InvalidPluginArgsError } from '../../framework/invalid-plugin-args-error.js';
import { DEFAULT_RESOURCES, requestedAndAllocatable, type ResourceSpec } from './resource-allocation.js';
import { leastAllocated, mostAllocated, requestedToCapacityRatio, type ResourceScorer, type UtilizationShapePoint } from './scoring-strategy.js';

export const NAME = 'NodeResourcesFit';

export interface NodeResourcesFitArgs {
  ignoredResources?: string[];
  ignoredResourceGroups?: string[];
  scoringStrategy?: {
    type?: 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';
    resources?: ResourceSpec[];
    requestedToCapacityRatio?: { shape?: UtilizationShapePoint[] };
  };
}

/** Filters out nodes without room for the pod's requests; scores by the configured strategy. */
export class NodeResourcesFit implements PreFilterPlugin, FilterPlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;
  private readonly resources: readonly ResourceSpec[];
  private readonly scorer: ResourceScorer;
  private readonly ignored: Set<string>;
  private readonly ignoredGroups: Set<string>;

  constructor(args: NodeResourcesFitArgs = {}) {
    const s = args.scoringStrategy ?? {};
    this.resources = s.resources?.length ? s.resources : DEFAULT_RESOURCES;
    this.ignored = new Set(args.ignoredResources ?? []);
    this.ignoredGroups = new Set(args.ignoredResourceGroups ?? []);
    switch (s.type ?? 'LeastAllocated') {
      case 'LeastAllocated':
        this.scorer = leastAllocated;
        break;
      case 'MostAllocated':
        this.scorer = mostAllocated;
        break;
      case 'RequestedToCapacityRatio':
        if (!s.requestedToCapacityRatio?.shape?.length) throw new InvalidPluginArgsError(NAME, 'RequestedToCapacityRatio needs a shape');
        this.scorer = requestedToCapacityRatio(s.requestedToCapacityRatio.shape);
        break;
      default:
        throw new InvalidPluginArgsError(NAME, `unknown scoring strategy ${String(s.type)}`);
    }
  }

  events(): readonly ClusterEvent[] {
    return [{ resource: 'AssignedPod', actions: ['Delete'] }, { resource: 'Node', actions: ['Add', 'Update'] }];
  }

  preFilter(): Status | undefined {
    return undefined;
  }

  // Runs for every pod on every node it considers: no closures or arrays unless the pod does not fit.
  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined {
    const alloc = node.allocatable;
    const used = node.requested;
    const req = pod.requests;
    const tooMany = node.pods.length + 1 > alloc.allowedPodNumber;
    const cpu = insufficient(req.milliCPU, alloc.milliCPU, used.milliCPU);
    const memory = insufficient(req.memory, alloc.memory, used.memory);
    const storage = insufficient(req.ephemeralStorage, alloc.ephemeralStorage, used.ephemeralStorage);
    let scalars: [string, number][] | undefined;
    for (const [name, want] of req.scalar) {
      if (this.ignored.has(name) || this.ignoredGroups.has(name.split('/')[0])) continue;
      const f = insufficient(want, alloc.scalar.get(name) ?? 0, used.scalar.get(name) ?? 0);
      if (f !== FITS) (scalars ??= []).push([name, f]);
    }
    if (!tooMany && cpu === FITS && memory === FITS && storage === FITS && !scalars) return undefined;
    const reasons: string[] = [];
    let unresolvable = false;
    const note = (name: string, f: number): void => {
      if (f === FITS) return;
      reasons.push(`Insufficient ${name}`);
      if (f === NEVER_FITS) unresolvable = true;
    };
    if (tooMany) reasons.push('Too many pods');
    note('cpu', cpu);
    note('memory', memory);
    note('ephemeral-storage', storage);
    for (const [name, f] of scalars ?? []) note(name, f);
    // A request larger than the whole node cannot be helped by preemption.
    return new Status(unresolvable ? Code.UnschedulableAndUnresolvable : Code.Unschedulable, reasons);
  }

  score(_state: CycleState, pod: PodInfo, node: NodeInfo): number {
    let sum = 0;
    let weights = 0;
    for (const r of this.resources) {
      const { requested, allocatable } = requestedAndAllocatable(node, pod, r.name);
      if (allocatable === 0) continue; // resources the node lacks do not count, as upstream
      sum += this.scorer(requested, allocatable) * r.weight;
      weights += r.weight;
    }
    return weights === 0 ? 0 : Math.floor(sum / weights);
  }
}

const FITS = 0;
const DOES_NOT_FIT = 1;
/** More than the node's whole allocatable. */
const NEVER_FITS = 2;

function insufficient(want: number, have: number, inUse: number): number {
  if (want === 0 || want <= have - inUse) return FITS;
  return want > have ? NEVER_FITS : DOES_NOT_FIT;
}

export const factory: PluginFactory = (args) => new NodeResourcesFit(args as NodeResourcesFitArgs);
