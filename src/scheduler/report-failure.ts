import { realClock, rfc3339, type Clock } from '../base/clock.js';
import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from '../client/events/event-recorder.js';
import type { Client } from '../client/rest/client.js';
import { isConflict, isNotFound } from '../client/rest/error-predicates.js';
import type { Logger } from '../machinery/logger.js';
import { PODS } from '../api/resource-refs.js';

export interface Failure {
  /** The PodScheduled condition reason: Unschedulable, or SchedulerError for internal failures. */
  reason: 'Unschedulable' | 'SchedulerError';
  message: string;
  /** Plugins whose rejection this was. */
  plugins: Set<string>;
  /** Set by preemption; '' clears a previous nomination. */
  nominatedNodeName?: string;
}

/**
 * Tells the user why a pod is still pending: a FailedScheduling Warning
 * event and the PodScheduled=False condition (plus status.nominatedNodeName
 * after a preemption). The status is only written when it changes, so a pod
 * retried many times does not write many times.
 */
export async function reportFailure(deps: { client: Client; recorder: EventRecorder; logger: Logger; clock?: Clock }, pod: Pod, failure: Failure): Promise<void> {
  deps.recorder.event(pod, 'Warning', 'FailedScheduling', failure.message);
  const old = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  const nominatedChanged = failure.nominatedNodeName !== undefined && (pod.status?.nominatedNodeName ?? '') !== failure.nominatedNodeName;
  if (old && old.status === 'False' && old.reason === failure.reason && old.message === failure.message && !nominatedChanged) return;
  const condition: PodCondition = {
    type: 'PodScheduled',
    status: 'False',
    reason: failure.reason,
    message: failure.message,
    lastProbeTime: null as unknown as string,
    lastTransitionTime: old?.status === 'False' && old.lastTransitionTime ? old.lastTransitionTime : rfc3339((deps.clock ?? realClock).now()),
  };
  const status: Record<string, unknown> = { conditions: [condition] };
  if (nominatedChanged) status.nominatedNodeName = failure.nominatedNodeName || null;
  const m = pod.metadata ?? {};
  try {
    await deps.client
      .resource<Pod>(PODS)
      .namespace(m.namespace ?? 'default')
      .patch(m.name ?? '', { metadata: { uid: m.uid }, status }, 'strategic', { subresource: 'status' });
  } catch (err) {
    // Gone or replaced meanwhile: nothing to report on.
    if (isNotFound(err) || isConflict(err)) return;
    deps.logger.warn('could not update pod status', { pod: `${m.namespace}/${m.name}`, err });
  }
}
