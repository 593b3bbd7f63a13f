import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { toleratesTaint } from '../../machinery/node-selection.js';

/** When a pod on a node with NoExecute taints must go: now, at a time, or never. */
export type EvictionTime = { kind: 'now' } | { kind: 'at'; at: number } | { kind: 'never' };

/**
 * Upstream's taint manager decision: a pod that does not tolerate every
 * NoExecute taint goes at once; otherwise at the taints' time plus the
 * smallest tolerationSeconds among the tolerations used (none: it stays).
 * `taintedSince` is when the taints appeared (their timeAdded).
 */
export function evictionTime(tolerations: readonly Toleration[] | undefined, taints: readonly Taint[], taintedSince: number): EvictionTime {
  const noExecute = taints.filter((t) => t.effect === 'NoExecute');
  if (noExecute.length === 0) return { kind: 'never' };
  let minSeconds: number | undefined;
  for (const taint of noExecute) {
    const used = (tolerations ?? []).filter((t) => toleratesTaint(t, taint));
    if (used.length === 0) return { kind: 'now' };
    for (const t of used) {
      if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
      const s = Math.max(0, t.tolerationSeconds);
      if (minSeconds === undefined || s < minSeconds) minSeconds = s;
    }
  }
  if (minSeconds === undefined) return { kind: 'never' };
  if (minSeconds === 0) return { kind: 'now' };
  return { kind: 'at', at: taintedSince + minSeconds * 1000 };
}

/** The latest timeAdded among the NoExecute taints (when the current set began), if stamped. */
export function taintedSince(taints: readonly Taint[]): number | undefined {
  let latest: number | undefined;
  for (const t of taints) {
    if (t.effect !== 'NoExecute' || !t.timeAdded) continue;
    const at = Date.parse(t.timeAdded);
    if (Number.isFinite(at) && (latest === undefined || at > latest)) latest = at;
  }
  return latest;
}
