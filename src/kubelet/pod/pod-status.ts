import { realClock } from '../../base/clock.js';
import type { Container, ContainerState, ContainerStatus as ApiContainerStatus, Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import type { ContainerStatus } from '../runtime/runtime.js';

/** What the kubelet knows about one container of a pod, across restarts. */
export interface ContainerRecord {
  spec: Container;
  init: boolean;
  /** An ephemeral (debug) container: started once, never restarted, not part of the pod's phase or readiness. */
  ephemeral?: boolean;
  /** The runtime's view of the current attempt. */
  current?: ContainerStatus;
  /** The previous attempt, once it has terminated. */
  last?: ContainerStatus;
  restartCount: number;
  /** Why no attempt is running (CrashLoopBackOff, CreateContainerError, ...). */
  waiting?: { reason: string; message?: string };
  ready: boolean;
  started: boolean;
}

export interface PodRuntimeView {
  pod: Pod;
  containers: ContainerRecord[];
  sandboxReady: boolean;
  podIP?: string;
  hostIP: string;
  startTime: string;
  runtimeName: string;
  /** The time conditions that change now are stamped with (ms since the epoch; default now). */
  now?: number;
}

export function apiTime(d: Date | undefined): string | undefined {
  return d?.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function terminated(s: ContainerStatus, runtimeName: string): ContainerState {
  return {
    terminated: {
      exitCode: s.exitCode ?? 0,
      reason: s.reason ?? (s.exitCode === 0 ? 'Completed' : 'Error'),
      ...(s.message ? { message: s.message } : {}),
      startedAt: apiTime(s.startedAt),
      finishedAt: apiTime(s.finishedAt),
      containerID: `${runtimeName}://${s.id}`,
    },
  };
}

/** The API's state for one container. */
export function containerState(r: ContainerRecord, runtimeName: string): ContainerState {
  if (r.current?.state === 'Running') return { running: { startedAt: apiTime(r.current.startedAt) } };
  if (r.waiting) return { waiting: { reason: r.waiting.reason, ...(r.waiting.message ? { message: r.waiting.message } : {}) } };
  if (r.current?.state === 'Exited') return terminated(r.current, runtimeName);
  return { waiting: { reason: 'ContainerCreating' } };
}

export function apiContainerStatus(r: ContainerRecord, runtimeName: string): ApiContainerStatus {
  const state = containerState(r, runtimeName);
  const lastState: ContainerState = r.last ? terminated(r.last, runtimeName) : {};
  // while waiting to restart, the attempt that just ended is the last state
  if (state.waiting && r.current?.state === 'Exited' && r.waiting) Object.assign(lastState, terminated(r.current, runtimeName));
  return {
    name: r.spec.name,
    state,
    lastState,
    ready: r.ready && r.current?.state === 'Running',
    restartCount: r.restartCount,
    image: r.spec.image ?? '',
    imageID: r.current?.imageRef ?? '',
    ...(r.current ? { containerID: `${runtimeName}://${r.current.id}` } : {}),
    started: r.current?.state === 'Running' && r.started,
  };
}

/** Whether an ended container will be started again under the pod's restart policy. */
export function willRestart(pod: Pod, s: ContainerStatus | undefined): boolean {
  const policy = pod.spec?.restartPolicy ?? 'Always';
  if (!s || s.state !== 'Exited') return false;
  return policy === 'Always' || (policy === 'OnFailure' && s.exitCode !== 0);
}

/** The pod phase from its containers, following upstream's getPhase. */
export function podPhase(view: PodRuntimeView): PodStatus['phase'] {
  const { pod } = view;
  const inits = view.containers.filter((c) => c.init);
  const mains = view.containers.filter((c) => !c.init && !c.ephemeral);
  const initFailed = inits.some((c) => c.current?.state === 'Exited' && c.current.exitCode !== 0 && !willRestart(pod, c.current));
  if (initFailed) return 'Failed';
  if (!inits.every((c) => c.current?.state === 'Exited' && c.current.exitCode === 0)) return 'Pending';
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of mains) {
    if (c.current?.state === 'Running') running++;
    else if (c.current?.state === 'Exited' || c.last) {
      stopped++;
      if ((c.current?.state === 'Exited' ? c.current : c.last)?.exitCode === 0) succeeded++;
    } else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    const policy = pod.spec?.restartPolicy ?? 'Always';
    if (policy === 'Always') return 'Running';
    if (policy === 'OnFailure') return stopped === succeeded ? 'Succeeded' : 'Running';
    return stopped === succeeded ? 'Succeeded' : 'Failed';
  }
  return 'Pending';
}

function cond(now: string | undefined, type: string, ok: boolean, previous: readonly PodCondition[], reason?: string, message?: string): PodCondition {
  const old = previous.find((c) => c.type === type);
  const status = ok ? 'True' : 'False';
  return {
    type,
    status,
    lastProbeTime: null as unknown as undefined,
    lastTransitionTime: old?.status === status && old.lastTransitionTime ? old.lastTransitionTime : now,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** The pod conditions the kubelet computes; every other type is someone else's and is left as it is. */
const KUBELET_CONDITIONS = new Set(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);

/** The full pod status, as upstream's kubelet reports it. */
export function podStatus(view: PodRuntimeView): PodStatus {
  const { pod } = view;
  const now = apiTime(new Date(view.now ?? realClock.now()));
  const previous = pod.status?.conditions ?? [];
  // a terminal phase is final (upstream's kubelet never moves a pod back from Failed or Succeeded)
  const apiPhase = pod.status?.phase;
  const phase = apiPhase === 'Succeeded' || apiPhase === 'Failed' ? apiPhase : podPhase(view);
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const inits = view.containers.filter((c) => c.init);
  const mains = view.containers.filter((c) => !c.init && !c.ephemeral);
  const ephemeral = view.containers.filter((c) => c.ephemeral);
  const initPending = inits.filter((c) => !(c.current?.state === 'Exited' && c.current.exitCode === 0)).map((c) => c.spec.name);
  const unready = mains.filter((c) => !(c.ready && c.current?.state === 'Running')).map((c) => c.spec.name);
  const completed = terminal ? 'PodCompleted' : undefined;
  const conditions: PodCondition[] = [
    cond(now, 'PodReadyToStartContainers', view.sandboxReady, previous),
    cond(now, 'Initialized', initPending.length === 0, previous, completed ?? (initPending.length ? 'ContainersNotInitialized' : undefined), initPending.length ? `containers with incomplete status: [${initPending.join(' ')}]` : undefined),
    cond(now, 'Ready', unready.length === 0 && !terminal, previous, completed ?? (unready.length ? 'ContainersNotReady' : undefined), !terminal && unready.length ? `containers with unready status: [${unready.join(' ')}]` : undefined),
    cond(now, 'ContainersReady', unready.length === 0 && !terminal, previous, completed ?? (unready.length ? 'ContainersNotReady' : undefined), !terminal && unready.length ? `containers with unready status: [${unready.join(' ')}]` : undefined),
    previous.find((c) => c.type === 'PodScheduled') ?? cond(now, 'PodScheduled', true, previous),
    // conditions others own (DisruptionTarget, readiness gates) are kept, as upstream's status manager does
    ...previous.filter((c) => !KUBELET_CONDITIONS.has(c.type)),
  ];
  const podIP = view.podIP;
  return {
    phase,
    conditions,
    hostIP: view.hostIP,
    hostIPs: [{ ip: view.hostIP }],
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    startTime: pod.status?.startTime ?? view.startTime,
    ...(inits.length ? { initContainerStatuses: inits.map((c) => apiContainerStatus(c, view.runtimeName)) } : {}),
    containerStatuses: mains.map((c) => apiContainerStatus(c, view.runtimeName)),
    // ephemeral containers are never probed, so never ready
    ...(ephemeral.length ? { ephemeralContainerStatuses: ephemeral.map((c) => ({ ...apiContainerStatus(c, view.runtimeName), ready: false })) } : {}),
    qosClass: pod.status?.qosClass ?? 'BestEffort',
  };
}
