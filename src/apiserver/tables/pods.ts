import type { Container, ContainerStatus, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../api/object.js';
import { humanDuration, parseTimestamp, translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN, fieldColumn } from './columns.js';
import { column, type ConditionedTableConvertor, type TableRowCondition } from './table-convertor.js';

/** The pod table: READY, STATUS and RESTARTS computed the way upstream's printPod does. */

const COLUMNS = [
  NAME_COLUMN,
  column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
  column('Status', 'string', 'The aggregate status of the containers in this pod.'),
  column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
  AGE_COLUMN,
  fieldColumn('IP', 'string', 'PodStatus.podIP', 1),
  fieldColumn('Node', 'string', 'PodSpec.nodeName', 1),
  fieldColumn('Nominated Node', 'string', 'PodStatus.nominatedNodeName', 1),
  fieldColumn('Readiness Gates', 'string', 'PodSpec.readinessGates', 1),
];

/** The pod status reason the node lifecycle controller sets on pods of unreachable nodes. */
const NODE_UNREACHABLE_REASON = 'NodeLost';

function isRestartable(c: Container | undefined): boolean {
  return c?.restartPolicy === 'Always';
}

function hasCondition(conditions: PodCondition[] | undefined, type: string): boolean {
  // Like upstream, only the first condition of a type counts.
  const c = conditions?.find((x) => x.type === type);
  return c?.status === 'True';
}

/** Tracks the latest `lastState.terminated.finishedAt` seen; undefined means none. */
class LastRestart {
  ms: number | undefined;
  see(status: ContainerStatus): void {
    const term = status.lastState?.terminated;
    if (!term) return;
    const at = parseTimestamp(term.finishedAt);
    if (at !== undefined && (this.ms === undefined || at > this.ms)) this.ms = at;
  }
}

interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

/** READY, STATUS and RESTARTS for one pod. */
export function summarizePod(pod: Pod, now: Date): PodSummary {
  const spec = pod.spec;
  const status = pod.status ?? {};
  const initSpecs = new Map((spec?.initContainers ?? []).map((c) => [c.name, c]));
  const initCount = spec?.initContainers?.length ?? 0;

  let restarts = 0;
  let sidecarRestarts = 0;
  let readyContainers = 0;
  let totalContainers = spec?.containers?.length ?? 0;
  for (const c of initSpecs.values()) if (isRestartable(c)) totalContainers++;
  let lastRestart = new LastRestart();
  const sidecarLastRestart = new LastRestart();

  let reason = status.reason || status.phase || '';
  for (const c of status.conditions ?? []) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const sidecar = isRestartable(initSpecs.get(cs.name));
    restarts += cs.restartCount ?? 0;
    lastRestart.see(cs);
    if (sidecar) {
      sidecarRestarts += cs.restartCount ?? 0;
      sidecarLastRestart.see(cs);
    }
    const terminated = cs.state?.terminated;
    const waiting = cs.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (sidecar && cs.started === true) {
      if (cs.ready) readyContainers++;
      continue;
    }
    if (terminated) {
      if (terminated.reason) reason = `Init:${terminated.reason}`;
      else if (terminated.signal) reason = `Init:Signal:${terminated.signal}`;
      else reason = `Init:ExitCode:${terminated.exitCode}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initCount}`;
    }
    // The first init container that has not finished decides the status.
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(status.conditions, 'Initialized')) {
    // Only sidecars keep counting once the pod is initialized.
    restarts = sidecarRestarts;
    lastRestart = sidecarLastRestart;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    // Walk backwards so the first container's state wins, as upstream does.
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += cs.restartCount ?? 0;
      lastRestart.see(cs);
      const waiting = cs.state?.waiting;
      const terminated = cs.state?.terminated;
      if (waiting?.reason) {
        reason = waiting.reason;
      } else if (terminated?.reason) {
        reason = terminated.reason;
      } else if (terminated) {
        reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
      } else if (cs.ready && cs.state?.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A completed container next to a running one does not make the pod "Completed".
    if (reason === 'Completed' && hasRunning) {
      reason = hasCondition(status.conditions, 'Ready') ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata?.deletionTimestamp) {
    if (status.reason === NODE_UNREACHABLE_REASON) reason = 'Unknown';
    else if (status.phase !== 'Succeeded' && status.phase !== 'Failed') reason = 'Terminating';
  }

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestart.ms !== undefined) {
    restartsText = `${restarts} (${humanDuration(now.getTime() - lastRestart.ms)} ago)`;
  }
  return { ready: `${readyContainers}/${totalContainers}`, status: reason, restarts: restartsText };
}

function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  let trueCount = 0;
  for (const g of gates) {
    const c = pod.status?.conditions?.find((x) => x.type === g.conditionType);
    if (c?.status === 'True') trueCount++;
  }
  return `${trueCount}/${gates.length}`;
}

function podCells(pod: Pod, now: Date): unknown[] {
  const s = summarizePod(pod, now);
  // The internal API fills podIPs from podIP, so either one counts.
  const ip = pod.status?.podIPs?.[0]?.ip || pod.status?.podIP || '<none>';
  return [
    pod.metadata?.name ?? '',
    s.ready,
    s.status,
    s.restarts,
    translateTimestampSince(pod.metadata?.creationTimestamp, now),
    ip,
    pod.spec?.nodeName || '<none>',
    pod.status?.nominatedNodeName || '<none>',
    readinessGates(pod),
  ];
}

function podConditions(obj: KubeObject): TableRowCondition[] | undefined {
  const phase = (obj as Pod).status?.phase;
  if (phase === 'Succeeded') return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
}

export const podTable: ConditionedTableConvertor = {
  columns: COLUMNS,
  cells: (obj, now) => podCells(obj as Pod, now),
  conditions: podConditions,
};
