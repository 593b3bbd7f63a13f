import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { Lister } from '../../../client/cache/lister.js';
import { isNotFound } from '../../../client/rest/error-predicates.js';
import type { CycleState } from '../../framework/cycle-state.js';
import { reasonsHistogram } from '../../framework/fit-error.js';
import type { Handle, PluginFactory, PostFilterPlugin, PostFilterResult } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { Code, Status } from '../../framework/status.js';
import { PdbBudget } from './pdb-budget.js';
import { PODS, POD_DISRUPTION_BUDGETS } from '../../../api/resource-refs.js';

export const NAME = 'DefaultPreemption';

interface Candidate {
  node: string;
  victims: PodInfo[];
  pdbViolations: number;
}

function startTime(p: PodInfo): number {
  return Date.parse(p.pod.status?.startTime ?? p.pod.metadata?.creationTimestamp ?? '') || 0;
}

/**
 * When no node fits, finds the node where evicting the fewest, lowest-priority
 * pods (sparing PodDisruptionBudgets where possible) makes room, deletes those
 * victims and nominates the node for the pod.
 */
export class DefaultPreemption implements PostFilterPlugin {
  readonly name = NAME;

  constructor(
    private readonly handle: Pick<Handle, 'client' | 'snapshot' | 'framework'>,
    private readonly pdbs: Pick<Lister<PodDisruptionBudget>, 'list'>,
  ) {}

  async postFilter(state: CycleState, pod: PodInfo, statuses: ReadonlyMap<string, Status>): Promise<PostFilterResult> {
    const refusal = this.ineligible(pod);
    if (refusal) return { status: Status.unschedulable(refusal) };
    const { candidates, nodeStatuses } = this.findCandidates(state, pod, statuses);
    if (candidates.length === 0) {
      const msg = `preemption: 0/${nodeStatuses.size} nodes are available: ${reasonsHistogram(nodeStatuses.values()).join(', ')}.`;
      return { status: Status.unschedulable(msg), nominatedNodeName: '' };
    }
    const best = pickCandidate(candidates);
    await this.evict(best.victims);
    return { status: Status.success(), nominatedNodeName: best.node };
  }

  /** Upstream's PodEligibleToPreemptOthers; a reason when not eligible. */
  private ineligible(pod: PodInfo): string | undefined {
    if (pod.pod.spec?.preemptionPolicy === 'Never') return 'not eligible due to preemptionPolicy=Never.';
    const nominated = pod.pod.status?.nominatedNodeName;
    if (nominated) {
      const ni = this.handle.snapshot.get(nominated);
      // A previous preemption is still draining there; wait for it instead of evicting more.
      if (ni?.pods.some((p) => p.pod.metadata?.deletionTimestamp && p.priority < pod.priority)) return 'not eligible due to a terminating pod on the nominated node.';
    }
    return undefined;
  }

  private findCandidates(state: CycleState, pod: PodInfo, statuses: ReadonlyMap<string, Status>): { candidates: Candidate[]; nodeStatuses: Map<string, Status> } {
    const nodeStatuses = new Map<string, Status>();
    const candidates: Candidate[] = [];
    const pdbs = this.pdbs.list();
    for (const ni of this.handle.snapshot.list()) {
      const s = statuses.get(ni.name);
      if (s && s.code === Code.UnschedulableAndUnresolvable) {
        nodeStatuses.set(ni.name, Status.unresolvable('Preemption is not helpful for scheduling'));
        continue;
      }
      const r = this.selectVictimsOnNode(state, pod, ni, pdbs);
      if ('status' in r) nodeStatuses.set(ni.name, r.status);
      else candidates.push(r);
    }
    return { candidates, nodeStatuses };
  }

  private selectVictimsOnNode(state: CycleState, pod: PodInfo, original: NodeInfo, pdbs: readonly PodDisruptionBudget[]): Candidate | { status: Status } {
    const fwk = this.handle.framework();
    const ni = original.clone();
    const potential = ni.pods.filter((p) => p.priority < pod.priority);
    if (potential.length === 0) return { status: Status.unresolvable('No preemption victims found for incoming pod') };
    for (const p of potential) ni.removePod(p.key);
    const fits = (): Status => fwk.runFilterPlugins(state, pod, ni);
    const s = fits();
    if (!s.isSuccess()) return { status: s };
    // Most important first, so the ones we can keep are the important ones.
    potential.sort((a, b) => b.priority - a.priority || startTime(a) - startTime(b));
    const budget = new PdbBudget(pdbs);
    const violating = potential.filter((p) => budget.wouldViolate(p.pod));
    const nonViolating = potential.filter((p) => !violating.includes(p));
    const victims: PodInfo[] = [];
    let pdbViolations = 0;
    const reprieve = (p: PodInfo, isViolating: boolean): void => {
      ni.addPod(p);
      if (fits().isSuccess()) return;
      ni.removePod(p.key);
      victims.push(p);
      if (isViolating) pdbViolations++;
    };
    for (const p of violating) reprieve(p, true);
    for (const p of nonViolating) reprieve(p, false);
    if (victims.length === 0) return { status: Status.unresolvable('No preemption victims found for incoming pod') };
    return { node: ni.name, victims, pdbViolations };
  }

  private async evict(victims: readonly PodInfo[]): Promise<void> {
    await Promise.all(
      victims.map(async (v) => {
        const m = v.pod.metadata ?? {};
        try {
          await this.handle.client.resource(PODS).namespace(m.namespace ?? 'default').delete(m.name ?? '', { preconditions: { uid: m.uid } });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }),
    );
  }
}

/**
 * Upstream's pickOneNodeForPreemption: fewest PDB violations, then the lowest
 * highest-victim priority, the smallest priority sum, the fewest victims,
 * the latest start among the most important victims, then the first.
 */
export function pickCandidate(candidates: readonly Candidate[]): Candidate {
  const criteria: ((c: Candidate) => number)[] = [
    (c) => c.pdbViolations,
    (c) => Math.max(...c.victims.map((v) => v.priority)),
    // Offset so negative priorities never make more victims look cheaper.
    (c) => c.victims.reduce((sum, v) => sum + v.priority + 2 ** 31, 0),
    (c) => c.victims.length,
    (c) => {
      const top = Math.max(...c.victims.map((v) => v.priority));
      return -Math.min(...c.victims.filter((v) => v.priority === top).map(startTime));
    },
  ];
  let pool = [...candidates];
  for (const f of criteria) {
    if (pool.length === 1) break;
    const best = Math.min(...pool.map(f));
    pool = pool.filter((c) => f(c) === best);
  }
  return pool[0];
}

export const factory: PluginFactory = (_args, handle) =>
  new DefaultPreemption(handle, handle.informers.forResource<PodDisruptionBudget>(POD_DISRUPTION_BUDGETS).lister);
