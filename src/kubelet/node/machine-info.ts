import { readFileSync, statfsSync } from 'node:fs';
import os from 'node:os';

/** What the kubelet measures about its machine, once per status update. */
export interface MachineInfo {
  cpus: number;
  memoryBytes: number;
  memoryAvailableBytes: number;
  /** Root-dir filesystem size and free space. */
  fsBytes: number;
  fsAvailableBytes: number;
  pidMax: number;
  pidsInUse: number;
  kernelVersion: string;
  osImage: string;
  architecture: string;
  operatingSystem: string;
  machineID: string;
  systemUUID: string;
  bootID: string;
  hostname: string;
  internalIP: string;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Go's GOARCH names, which Kubernetes labels use. */
export function goArch(arch: string = process.arch): string {
  return ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[arch] ?? arch;
}

/** The first non-loopback IPv4 address; loopback if there is none. */
export function primaryIPv4(): string {
  for (const addrs of Object.values(os.networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

function memAvailable(): number {
  const m = /^MemAvailable:\s+(\d+) kB/m.exec(read('/proc/meminfo'));
  return m ? Number(m[1]) * 1024 : os.freemem();
}

function pidsInUse(): number {
  const m = /^\S+ \S+ \S+ \d+\/(\d+)/.exec(read('/proc/loadavg'));
  return m ? Number(m[1]) : 0;
}

export function readMachineInfo(rootDir: string): MachineInfo {
  let fsBytes = 0;
  let fsAvailableBytes = 0;
  try {
    const s = statfsSync(rootDir);
    fsBytes = s.blocks * s.bsize;
    fsAvailableBytes = s.bavail * s.bsize;
  } catch {
    // root dir not created yet: report no ephemeral storage rather than fail
  }
  const osRelease = read('/etc/os-release');
  return {
    cpus: os.availableParallelism?.() ?? os.cpus().length,
    memoryBytes: os.totalmem(),
    memoryAvailableBytes: memAvailable(),
    fsBytes,
    fsAvailableBytes,
    pidMax: Number(read('/proc/sys/kernel/pid_max')) || 32768,
    pidsInUse: pidsInUse(),
    kernelVersion: os.release(),
    osImage: /^PRETTY_NAME="?([^"\n]*)"?/m.exec(osRelease)?.[1] ?? os.type(),
    architecture: goArch(),
    operatingSystem: process.platform,
    machineID: read('/etc/machine-id'),
    systemUUID: read('/sys/class/dmi/id/product_uuid') || read('/etc/machine-id'),
    bootID: read('/proc/sys/kernel/random/boot_id'),
    hostname: os.hostname().toLowerCase(),
    internalIP: primaryIPv4(),
  };
}
