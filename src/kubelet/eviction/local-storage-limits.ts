import type { Pod } from 'kubernetes-types/core/v1.js';
import { Quantity } from '../../machinery/quantity.js';
import type { PodStats } from '../stats/summary.js';

/**
 * Why a pod has outgrown its own local storage limits (upstream's
 * localStorageEviction): an emptyDir over its sizeLimit, the pod over the
 * sum of its containers' ephemeral-storage limits, or one container over its
 * own. Undefined when it has not.
 */
export function localStorageViolation(pod: Pod, stats: PodStats): string | undefined {
  const used = new Map((stats.volume ?? []).map((v) => [v.name, v.usedBytes ?? 0]));
  for (const v of pod.spec?.volumes ?? []) {
    const limit = v.emptyDir?.sizeLimit;
    if (limit === undefined) continue;
    const q = Quantity.parse(String(limit));
    const u = used.get(v.name);
    if (u !== undefined && q.sign() > 0 && u > q.value()) return `Usage of EmptyDir volume "${v.name}" exceeds the limit "${q.toString()}". `;
  }
  const limits = (pod.spec?.containers ?? []).map((c) => c.resources?.limits?.['ephemeral-storage']).filter((l) => l !== undefined).map((l) => Quantity.parse(String(l)));
  if (limits.length > 0) {
    const total = limits.reduce((a, q) => a.add(q));
    if ((stats['ephemeral-storage']?.usedBytes ?? 0) > total.value()) return `Pod ephemeral local storage usage exceeds the total limit of containers ${total.toString()}. `;
  }
  for (const c of stats.containers) {
    const limit = pod.spec?.containers?.find((x) => x.name === c.name)?.resources?.limits?.['ephemeral-storage'];
    if (limit === undefined) continue;
    const q = Quantity.parse(String(limit));
    if (q.isZero()) continue;
    const usage = (c.logs?.usedBytes ?? 0) + (c.rootfs?.usedBytes ?? 0);
    if (usage > q.value()) return `Container ${c.name} exceeded its local ephemeral storage limit "${q.toString()}". `;
  }
  return undefined;
}
