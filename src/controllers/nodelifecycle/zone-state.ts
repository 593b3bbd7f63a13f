import type { Node } from 'kubernetes-types/core/v1.js';

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** The zone key of a node, from its topology labels (upstream's GetZoneKey); '' without them. */
export function zoneOf(node: Node): string {
  const labels = node.metadata?.labels ?? {};
  const region = labels['topology.kubernetes.io/region'] ?? labels['failure-domain.beta.kubernetes.io/region'] ?? '';
  const zone = labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'] ?? '';
  return region === '' && zone === '' ? '' : `${region}:\x00:${zone}`;
}

/**
 * Upstream's ComputeZoneState: a zone with no ready node is fully disrupted;
 * one with more than two not-ready nodes making up at least `unhealthyThreshold`
 * of it is partially disrupted.
 */
export function computeZoneState(readyStatuses: readonly string[], unhealthyThreshold: number): ZoneState {
  const notReady = readyStatuses.filter((s) => s !== 'True').length;
  const ready = readyStatuses.length - notReady;
  if (ready === 0 && notReady > 0) return 'FullDisruption';
  if (notReady > 2 && notReady / readyStatuses.length >= unhealthyThreshold) return 'PartialDisruption';
  return 'Normal';
}

/** The rate (nodes/s) at which a zone's nodes may be tainted for eviction (upstream's setLimiterInZone). */
export function evictionRateFor(state: ZoneState, zoneSize: number, o: { rate: number; secondaryRate: number; largeClusterThreshold: number }): number {
  if (state === 'PartialDisruption') return zoneSize > o.largeClusterThreshold ? o.secondaryRate : 0;
  return o.rate;
}
