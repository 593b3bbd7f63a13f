import type { Summary } from '../stats/summary.js';
import type { Signal, SignalObservation } from './signals.js';

const at = (time: string | undefined, fallback: number): number => (time ? Date.parse(time) : fallback);

/**
 * The eviction signals from a stats summary (upstream's
 * makeSignalObservations): memory.available is the node's available memory
 * against available + working set, nodefs/imagefs their filesystems' free
 * bytes and inodes, pid.available the process limit minus the processes.
 */
export function makeSignalObservations(summary: Summary, now: number): Map<Signal, SignalObservation> {
  const out = new Map<Signal, SignalObservation>();
  const node = summary.node;
  const mem = node.memory;
  if (mem?.availableBytes !== undefined && mem.workingSetBytes !== undefined) {
    out.set('memory.available', { available: mem.availableBytes, capacity: mem.availableBytes + mem.workingSetBytes, time: at(mem.time, now) });
  }
  const fs = node.fs;
  if (fs?.availableBytes !== undefined && fs.capacityBytes !== undefined) out.set('nodefs.available', { available: fs.availableBytes, capacity: fs.capacityBytes, time: at(fs.time, now) });
  if (fs?.inodesFree !== undefined && fs.inodes !== undefined) out.set('nodefs.inodesFree', { available: fs.inodesFree, capacity: fs.inodes, time: at(fs.time, now) });
  const image = node.runtime?.imageFs;
  if (image?.availableBytes !== undefined && image.capacityBytes !== undefined) out.set('imagefs.available', { available: image.availableBytes, capacity: image.capacityBytes, time: at(image.time, now) });
  if (image?.inodesFree !== undefined && image.inodes !== undefined) out.set('imagefs.inodesFree', { available: image.inodesFree, capacity: image.inodes, time: at(image.time, now) });
  const rl = node.rlimit;
  if (rl?.maxpid !== undefined && rl.curproc !== undefined) out.set('pid.available', { available: rl.maxpid - rl.curproc, capacity: rl.maxpid, time: at(rl.time, now) });
  return out;
}
