/**
 * Eviction signals (upstream's pkg/kubelet/eviction/api): what the kubelet
 * observes, the node condition each one drives and the resource it reclaims.
 */
export type Signal =
  | 'memory.available'
  | 'nodefs.available'
  | 'nodefs.inodesFree'
  | 'imagefs.available'
  | 'imagefs.inodesFree'
  | 'pid.available';

export type PressureCondition = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';

/** The resource a signal's eviction reclaims; `inodes` and `pids` are the eviction manager's own names. */
export type ReclaimResource = 'memory' | 'ephemeral-storage' | 'inodes' | 'pids';

interface SignalInfo {
  condition: PressureCondition;
  resource: ReclaimResource;
}

export const SIGNALS: Readonly<Record<Signal, SignalInfo>> = {
  'memory.available': { condition: 'MemoryPressure', resource: 'memory' },
  'nodefs.available': { condition: 'DiskPressure', resource: 'ephemeral-storage' },
  'nodefs.inodesFree': { condition: 'DiskPressure', resource: 'inodes' },
  'imagefs.available': { condition: 'DiskPressure', resource: 'ephemeral-storage' },
  'imagefs.inodesFree': { condition: 'DiskPressure', resource: 'inodes' },
  'pid.available': { condition: 'PIDPressure', resource: 'pids' },
};

export function isSignal(s: string): s is Signal {
  return Object.hasOwn(SIGNALS, s);
}

/** What the kubelet saw of one signal: available and capacity in bytes, inodes or processes, and when. */
export interface SignalObservation {
  available: number;
  capacity: number;
  time: number;
}

export type SignalObservations = ReadonlyMap<Signal, SignalObservation>;
