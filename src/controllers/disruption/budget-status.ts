import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';

/** How long an eviction's entry in `disruptedPods` holds before the pod counts again (upstream: 2 min). */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

/** The budget's arithmetic could not be done (e.g. a pod without a scalable controller). */
export class BudgetError extends Error {
  override readonly name = 'BudgetError';
}

/** An IntOrString against a total: an integer, or a percentage rounded up (upstream's GetScaledValueFromIntOrPercent). */
export function scaled(v: number | string, total: number): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) throw new BudgetError(`invalid value for IntOrString: invalid type: string is not a percentage`);
  return Math.ceil((Number(m[1]) * total) / 100);
}

export interface BudgetInputs {
  pdb: PodDisruptionBudget;
  /** Pods the selector matches. */
  pods: Pod[];
  /** The replicas of the controller of each pod (upstream's finders); undefined when a pod has none. */
  controllerScale: (pod: Pod) => { uid: string; replicas: number } | undefined;
  now: number;
}

function isHealthy(pod: Pod): boolean {
  return !pod.metadata?.deletionTimestamp && (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The expected and desired pod counts of a budget (upstream's getExpectedPodCount). */
function expectedAndDesired(i: BudgetInputs): { expected: number; desired: number } {
  const spec = i.pdb.spec ?? {};
  const fromControllers = (): number => {
    const seen = new Map<string, number>();
    for (const pod of i.pods) {
      const s = i.controllerScale(pod);
      if (!s) throw new BudgetError(`found no controllers for pod "${pod.metadata?.name ?? ''}"`);
      seen.set(s.uid, s.replicas);
    }
    return [...seen.values()].reduce((a, b) => a + b, 0);
  };
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const expected = fromControllers();
    return { expected, desired: Math.max(0, expected - scaled(spec.maxUnavailable, expected)) };
  }
  if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
    if (typeof spec.minAvailable === 'number') return { expected: i.pods.length, desired: spec.minAvailable };
    const expected = fromControllers();
    return { expected, desired: scaled(spec.minAvailable, expected) };
  }
  return { expected: i.pods.length, desired: 0 };
}

/**
 * The status the disruption controller writes for a budget: healthy pods
 * (ready, not being deleted, not recently evicted), how many must stay, and
 * how many may go now; evictions not yet seen through are kept in
 * `disruptedPods` for up to two minutes. Throws BudgetError when the counts
 * cannot be known.
 */
export function computeBudgetStatus(i: BudgetInputs): { status: PodDisruptionBudgetStatus; recheckAfter?: number } {
  const { expected, desired } = expectedAndDesired(i);
  const disruptedPods: Record<string, string> = {};
  let recheckAfter: number | undefined;
  const byName = new Map(i.pods.map((p) => [p.metadata?.name ?? '', p]));
  for (const [name, at] of Object.entries(i.pdb.status?.disruptedPods ?? {})) {
    const pod = byName.get(name);
    if (!pod || pod.metadata?.deletionTimestamp) continue;
    const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (expires <= i.now) continue;
    disruptedPods[name] = at;
    recheckAfter = Math.min(recheckAfter ?? Infinity, expires - i.now);
  }
  const currentHealthy = i.pods.filter((p) => isHealthy(p) && !disruptedPods[p.metadata?.name ?? '']).length;
  const disruptionsAllowed = expected <= 0 ? 0 : Math.max(0, currentHealthy - desired);
  return {
    status: {
      observedGeneration: i.pdb.metadata?.generation,
      disruptedPods: Object.keys(disruptedPods).length ? disruptedPods : undefined,
      disruptionsAllowed,
      currentHealthy,
      desiredHealthy: desired,
      expectedPods: expected,
    },
    recheckAfter,
  };
}
