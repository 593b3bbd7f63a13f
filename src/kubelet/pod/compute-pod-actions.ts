import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerStatus } from '../runtime/runtime.js';
import { willRestart } from './pod-status.js';

/** What the runtime reports for one container of the pod, and what its probes say. */
export interface ContainerView {
  name: string;
  init: boolean;
  /** An ephemeral container: started once, whatever the pod's phase of initialization, and never restarted. */
  ephemeral?: boolean;
  /** The runtime's view of the current attempt; absent before the first. */
  current?: ContainerStatus;
  /** A failing liveness probe, or a startup probe that gave up: the container must be restarted. */
  unhealthy?: 'liveness' | 'startup';
}

export interface PodRuntimeState {
  /** The pod's sandbox, when one exists. */
  sandbox?: { id: string; ready: boolean };
  /** Init containers then app containers, in spec order. */
  containers: ContainerView[];
}

export interface ContainerToKill {
  name: string;
  id: string;
  /** Why (becomes the Killing event's message). */
  message: string;
}

/**
 * What a pod needs next, as upstream's kuberuntime_manager computes it:
 * decide here, act in the pod worker. Starts of exited containers are still
 * subject to CrashLoopBackOff, which the worker applies.
 */
export interface PodActions {
  /** Stop every container (and the sandbox when `createSandbox` follows). */
  killPod: boolean;
  /** Create a (new) sandbox before starting anything. */
  createSandbox: boolean;
  /** The sandbox to start containers in (when not creating one). */
  sandboxId?: string;
  /** The next init container to start, when init containers are not done. */
  nextInitContainer?: string;
  /** App containers to start (new ones and restarts), in spec order. */
  containersToStart: string[];
  /** Ephemeral containers never started yet (upstream: they may start before initialization completes). */
  ephemeralContainersToStart: string[];
  /** Running containers to stop now (failing liveness/startup probes); they restart on a later sync. */
  containersToKill: ContainerToKill[];
}

const nothing = (): PodActions => ({ killPod: false, createSandbox: false, containersToStart: [], ephemeralContainersToStart: [], containersToKill: [] });

function initRestarts(pod: Pod, s: ContainerStatus): boolean {
  return s.exitCode !== 0 && (pod.spec?.restartPolicy ?? 'Always') !== 'Never';
}

const succeeded = (c: ContainerView) => c.current?.state === 'Exited' && c.current.exitCode === 0;

/** A pure function of the pod and the runtime's state: no I/O, table-tested. */
export function computePodActions(pod: Pod, state: PodRuntimeState): PodActions {
  const actions = nothing();
  const phase = pod.status?.phase;
  if (pod.metadata?.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed') {
    return { ...actions, killPod: true };
  }
  const inits = state.containers.filter((c) => c.init);
  const mains = state.containers.filter((c) => !c.init && !c.ephemeral);

  if (!state.sandbox?.ready) {
    // a pod whose containers all finished under restartPolicy Never does not get a new sandbox (upstream's podSandboxChanged)
    const policy = pod.spec?.restartPolicy ?? 'Always';
    if (state.sandbox && policy === 'Never' && mains.length > 0 && mains.every((c) => c.current?.state === 'Exited')) {
      return { ...actions, killPod: true };
    }
    actions.createSandbox = true;
    actions.killPod = state.sandbox !== undefined;
    // everything starts over in the new sandbox: the first init container, or all app containers
    if (inits.length > 0) actions.nextInitContainer = inits[0]!.name;
    else actions.containersToStart = mains.map((c) => c.name);
    return actions;
  }
  actions.sandboxId = state.sandbox.id;
  actions.ephemeralContainersToStart = state.containers.filter((c) => c.ephemeral && !c.current).map((c) => c.name);

  for (const c of inits) {
    if (succeeded(c)) continue;
    const s = c.current;
    if (s?.state === 'Running') return actions;
    if (s?.state === 'Exited' && !initRestarts(pod, s)) return { ...actions, killPod: true };
    actions.nextInitContainer = c.name;
    return actions;
  }

  for (const c of mains) {
    const s = c.current;
    if (s?.state === 'Running') {
      if (c.unhealthy) actions.containersToKill.push({ name: c.name, id: s.id, message: `Container ${c.name} failed ${c.unhealthy} probe, will be restarted` });
      continue;
    }
    if (!s || s.state === 'Created' || s.state === 'Unknown' || willRestart(pod, s)) actions.containersToStart.push(c.name);
  }
  return actions;
}
