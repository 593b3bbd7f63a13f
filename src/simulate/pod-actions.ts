import type { ContainerStatus, Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import { rfc3339 } from '../base/clock.js';

/** How long simulated pods take. */
export interface PodTiming {
  /** From the simulated kubelet first seeing the pod bound to its node until it is Running. */
  startDelayMs: number;
  /** From Running until a Job's pod has Succeeded. */
  jobPodDurationMs: number;
}

/** What a simulated kubelet does next for a pod bound to it: decided here, done by the pod lifecycle. */
export type PodAction =
  | { kind: 'none' }
  /** Nothing yet: look again at `atMs`. */
  | { kind: 'wait'; atMs: number }
  /** Pending → Running (ready unless a readiness probe has an initial delay). */
  | { kind: 'start' }
  /** Running, and the readiness probes' initial delay has passed. */
  | { kind: 'ready' }
  /** A Job's pod has run its course: Succeeded. */
  | { kind: 'complete' }
  /** The pod is terminating: its containers are gone, so delete it for good (grace period 0). */
  | { kind: 'finish-deletion' };

const isTerminal = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
const ownedByJob = (pod: Pod) => (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Job' && o.apiVersion.startsWith('batch/'));

/** The longest readiness-probe initial delay of the pod's containers, in ms (0: ready at start). */
export function readinessDelayMs(pod: Pod): number {
  return Math.max(0, ...(pod.spec?.containers ?? []).map((c) => (c.readinessProbe ? (c.readinessProbe.initialDelaySeconds ?? 0) * 1000 : 0)));
}

function allReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * The next step for a pod bound to a simulated node, first seen bound at
 * `seenAtMs`: level-triggered on the pod as it is, so replaying it is safe.
 */
export function nextPodAction(pod: Pod, seenAtMs: number, nowMs: number, timing: PodTiming): PodAction {
  if (pod.metadata?.deletionTimestamp) return { kind: 'finish-deletion' };
  if (isTerminal(pod)) return { kind: 'none' };
  if (pod.status?.phase !== 'Running') {
    const at = seenAtMs + timing.startDelayMs;
    return nowMs < at ? { kind: 'wait', atMs: at } : { kind: 'start' };
  }
  const startedAt = Date.parse(pod.status.startTime ?? '') || seenAtMs;
  if (!allReady(pod)) {
    const at = startedAt + readinessDelayMs(pod);
    return nowMs < at ? { kind: 'wait', atMs: at } : { kind: 'ready' };
  }
  if (ownedByJob(pod)) {
    const at = startedAt + timing.jobPodDurationMs;
    return nowMs < at ? { kind: 'wait', atMs: at } : { kind: 'complete' };
  }
  return { kind: 'none' };
}

function conditions(pod: Pod, ts: string, ready: boolean, reason?: string): PodCondition[] {
  const status = (type: string, ok: boolean): PodCondition => {
    const old = pod.status?.conditions?.find((c) => c.type === type);
    const s = ok ? 'True' : 'False';
    return {
      type,
      status: s,
      lastTransitionTime: old?.status === s && old.lastTransitionTime ? old.lastTransitionTime : ts,
      ...(!ok && reason ? { reason } : {}),
    };
  };
  const own = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady'];
  const kept = (pod.status?.conditions ?? []).filter((c) => !own.includes(c.type));
  return [
    ...kept,
    status('PodReadyToStartContainers', reason !== 'PodCompleted'),
    status('Initialized', true),
    status('Ready', ready),
    status('ContainersReady', ready),
  ];
}

function containerID(pod: Pod, name: string): string {
  return `simulated://${pod.metadata?.uid ?? ''}-${name}`;
}

function imageID(image: string): string {
  return `simulated://${image}`;
}

/** The status of a pod whose containers all run (and are ready, if `ready`). */
export function runningStatus(pod: Pod, at: { nowMs: number; podIP: string; hostIP: string; ready: boolean }): PodStatus {
  const ts = rfc3339(at.nowMs);
  const startedAt = pod.status?.startTime ?? ts;
  const containerStatuses: ContainerStatus[] = (pod.spec?.containers ?? []).map((c) => ({
    name: c.name,
    image: c.image ?? '',
    imageID: imageID(c.image ?? ''),
    containerID: containerID(pod, c.name),
    ready: at.ready,
    started: true,
    restartCount: 0,
    state: { running: { startedAt } },
  }));
  const initContainerStatuses: ContainerStatus[] = (pod.spec?.initContainers ?? []).map((c) => ({
    name: c.name,
    image: c.image ?? '',
    imageID: imageID(c.image ?? ''),
    containerID: containerID(pod, c.name),
    ready: true,
    started: false,
    restartCount: 0,
    state: { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: startedAt } },
  }));
  return {
    ...pod.status,
    phase: 'Running',
    conditions: conditions(pod, ts, at.ready),
    hostIP: at.hostIP,
    hostIPs: [{ ip: at.hostIP }],
    podIP: at.podIP,
    podIPs: [{ ip: at.podIP }],
    startTime: startedAt,
    containerStatuses,
    ...(initContainerStatuses.length ? { initContainerStatuses } : {}),
  };
}

/** The status of a pod whose containers all exited 0 (restartPolicy Never/OnFailure: the pod has Succeeded). */
export function completedStatus(pod: Pod, nowMs: number): PodStatus {
  const ts = rfc3339(nowMs);
  const startedAt = pod.status?.startTime ?? ts;
  return {
    ...pod.status,
    phase: 'Succeeded',
    conditions: conditions(pod, ts, false, 'PodCompleted'),
    containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: c.image ?? '',
      imageID: imageID(c.image ?? ''),
      containerID: containerID(pod, c.name),
      ready: false,
      started: false,
      restartCount: 0,
      state: { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: ts, containerID: containerID(pod, c.name) } },
    })),
  };
}
