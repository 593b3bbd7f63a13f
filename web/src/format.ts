import type { KubeObject } from './api.js';

/** kubectl's AGE column: 45s, 12m, 3h, 2d. */
export function age(timestamp: string | undefined, now = Date.now()): string {
  if (!timestamp) return '';
  const s = Math.max(0, Math.floor((now - Date.parse(timestamp)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

interface ContainerStatus {
  ready?: boolean;
  restartCount?: number;
  state?: { waiting?: { reason?: string }; terminated?: { reason?: string } };
}

/** kubectl get pods' STATUS: a waiting or terminated reason, Terminating, else the phase. */
export function podStatus(pod: KubeObject): string {
  if (pod.metadata.deletionTimestamp) return 'Terminating';
  const statuses = (pod.status?.containerStatuses ?? []) as ContainerStatus[];
  for (const c of statuses) {
    const reason = c.state?.waiting?.reason ?? c.state?.terminated?.reason;
    if (reason) return reason;
  }
  return String(pod.status?.phase ?? 'Pending');
}

export function podReady(pod: KubeObject): string {
  const statuses = (pod.status?.containerStatuses ?? []) as ContainerStatus[];
  const total = (pod.spec?.containers ?? []).length as number;
  return `${statuses.filter((c) => c.ready).length}/${total}`;
}

export function restarts(pod: KubeObject): number {
  return ((pod.status?.containerStatuses ?? []) as ContainerStatus[]).reduce((n, c) => n + (c.restartCount ?? 0), 0);
}

export function conditionStatus(obj: KubeObject, type: string): string | undefined {
  return ((obj.status?.conditions ?? []) as { type: string; status: string }[]).find((c) => c.type === type)?.status;
}
