import type { Pod, Service } from 'kubernetes-types/core/v1.js';

/** Annotation on Endpoints and EndpointSlices: when the change they reflect happened. */
export const LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';

interface ServiceState {
  podTriggerTimes: Map<string, number>;
  serviceTriggerTime: number;
}

function time(s: string | undefined): number {
  const t = s ? Date.parse(s) : NaN;
  return Number.isFinite(t) ? t : 0;
}

/**
 * Remembers, per service, the trigger times seen at the last sync so the
 * next sync can tell which changes it is about to publish (upstream's
 * TriggerTimeTracker). A pod's trigger time is its Ready condition's last
 * transition; a service's is its creation. The result is the earliest
 * unpublished change, used for network-programming latency.
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, ServiceState>();

  /** Epoch ms of the earliest change since the last call, or undefined if none. */
  compute(service: Service, pods: readonly Pod[]): number | undefined {
    const key = `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`;
    const previous = this.states.get(key);
    const next: ServiceState = { podTriggerTimes: new Map(), serviceTriggerTime: time(service.metadata?.creationTimestamp) };
    let earliest: number | undefined;
    const consider = (t: number): void => {
      earliest = earliest === undefined ? t : Math.min(earliest, t);
    };
    for (const pod of pods) {
      const t = time(pod.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime);
      if (t === 0) continue;
      next.podTriggerTimes.set(pod.metadata?.name ?? '', t);
      if (t > (previous?.podTriggerTimes.get(pod.metadata?.name ?? '') ?? 0)) consider(t);
    }
    if (next.serviceTriggerTime > (previous?.serviceTriggerTime ?? 0)) consider(next.serviceTriggerTime);
    this.states.set(key, next);
    return earliest;
  }

  forget(namespace: string, name: string): void {
    this.states.delete(`${namespace}/${name}`);
  }
}

/** RFC 3339 with fractional seconds, as upstream formats the annotation. */
export function formatTriggerTime(ms: number): string {
  return new Date(ms).toISOString();
}
