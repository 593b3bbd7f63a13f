import type { Deployment } from 'kubernetes-types/apps/v1.js';

type IntOrString = number | string | undefined;

/** A count or a percentage of `total`; percentages round up or down (intstr.GetScaledValueFromIntOrPercent). */
export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) {
    const n = Number(v);
    if (Number.isInteger(n)) return n;
    throw new RangeError(`invalid value for IntOrString: ${JSON.stringify(v)}`);
  }
  const scaled = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

function isRollingUpdate(d: Deployment): boolean {
  return (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

/** Surge rounds up and unavailability down; both zero would stall, so unavailability becomes 1. */
export function resolveFenceposts(d: Deployment): { maxSurge: number; maxUnavailable: number } {
  const replicas = d.spec?.replicas ?? 1;
  const ru = d.spec?.strategy?.rollingUpdate;
  const maxSurge = scaledValue(ru?.maxSurge ?? '25%', replicas, true);
  let maxUnavailable = scaledValue(ru?.maxUnavailable ?? '25%', replicas, false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

export function maxSurge(d: Deployment): number {
  return isRollingUpdate(d) ? resolveFenceposts(d).maxSurge : 0;
}

export function maxUnavailable(d: Deployment): number {
  const replicas = d.spec?.replicas ?? 1;
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  return Math.min(resolveFenceposts(d).maxUnavailable, replicas);
}

export { isRollingUpdate };
