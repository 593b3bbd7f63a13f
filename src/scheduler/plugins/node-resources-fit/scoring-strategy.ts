import { MAX_NODE_SCORE } from '../../framework/interface.js';

/** Maps one resource's requested/allocatable to a 0–100 score. */
export type ResourceScorer = (requested: number, allocatable: number) => number;

export const leastAllocated: ResourceScorer = (requested, allocatable) => {
  if (allocatable === 0 || requested > allocatable) return 0;
  return Math.floor(((allocatable - requested) * MAX_NODE_SCORE) / allocatable);
};

export const mostAllocated: ResourceScorer = (requested, allocatable) => {
  if (allocatable === 0) return 0;
  return Math.floor((Math.min(requested, allocatable) * MAX_NODE_SCORE) / allocatable);
};

export interface UtilizationShapePoint {
  /** 0–100 percent. */
  utilization: number;
  /** 0–10, as in the configuration API. */
  score: number;
}

/** A piecewise-linear function of utilization (RequestedToCapacityRatio). */
export function requestedToCapacityRatio(shape: readonly UtilizationShapePoint[]): ResourceScorer {
  const points = [...shape].sort((a, b) => a.utilization - b.utilization).map((p) => ({ u: p.utilization, s: (p.score * MAX_NODE_SCORE) / 10 }));
  const curve = (u: number): number => {
    if (points.length === 0) return 0;
    if (u <= points[0].u) return points[0].s;
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1];
      const b = points[i];
      if (u <= b.u) return a.s + ((b.s - a.s) * (u - a.u)) / (b.u - a.u);
    }
    return points[points.length - 1].s;
  };
  return (requested, allocatable) => {
    if (allocatable === 0 || requested > allocatable) return Math.floor(curve(100));
    return Math.floor(curve((requested * 100) / allocatable));
  };
}
