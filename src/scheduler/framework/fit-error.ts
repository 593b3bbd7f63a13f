import type { Status } from './status.js';

/** Why no node fit: every node's rejection plus what PreFilter/PostFilter said. */
export interface Diagnosis {
  nodeStatuses: Map<string, Status>;
  /** Plugins that rejected the pod somewhere, for deciding which events re-queue it. */
  unschedulablePlugins: Set<string>;
  preFilterMessage?: string;
  postFilterMessage?: string;
}

/** `count reason` pairs sorted as strings, as upstream's reasons histogram. */
export function reasonsHistogram(statuses: Iterable<Status>): string[] {
  const counts = new Map<string, number>();
  for (const s of statuses) for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, n]) => `${n} ${r}`).sort();
}

/**
 * The pod fits on no node (an outcome, not an exception). The message follows upstream's format exactly,
 * e.g. `0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated
 * taint {dedicated: gpu}. preemption: 0/3 nodes are available: …`.
 */
export class FitError {
  constructor(
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {}

  message(): string {
    if (this.numAllNodes === 0) return 'no nodes available to schedule pods';
    let msg = `0/${this.numAllNodes} nodes are available:`;
    if (this.diagnosis.preFilterMessage) {
      msg += ` ${this.diagnosis.preFilterMessage}.`;
    } else {
      const reasons = reasonsHistogram(this.diagnosis.nodeStatuses.values());
      if (reasons.length > 0) msg += ` ${reasons.join(', ')}.`;
    }
    // PostFilter messages may end with their own full stop; keep one.
    if (this.diagnosis.postFilterMessage) msg += ` ${this.diagnosis.postFilterMessage.replace(/\.+$/, '')}.`;
    return msg;
  }
}
