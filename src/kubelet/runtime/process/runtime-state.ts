import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContainerConfig, ContainerStatus, PodSandboxConfig, PodSandboxStatus } from '../runtime.js';

/** What survives a restart of the kubelet about one sandbox. */
export interface SandboxState {
  status: PodSandboxStatus;
  config: PodSandboxConfig;
}

/** What survives a restart of the kubelet about one container; pids come with start times to detect reuse. */
export interface ContainerState {
  status: ContainerStatus;
  config: ContainerConfig;
  podUid: string;
  /** The shim that waits for the container and records its exit status. */
  shimPid?: number;
  shimStartTime?: number;
  /** Start time of `status.pid`. */
  startTime?: number;
}

const DATE_FIELDS = ['createdAt', 'startedAt', 'finishedAt'] as const;

function revive<T extends { createdAt: Date; startedAt?: Date; finishedAt?: Date }>(s: T): T {
  const out = { ...s } as Record<string, unknown>;
  for (const f of DATE_FIELDS) if (typeof out[f] === 'string') out[f] = new Date(out[f]);
  return out as T;
}

/**
 * The process runtime's records on disk, like a CRI runtime's state
 * directory: `sandboxes/<id>.json` and `containers/<id>/state.json`, next to
 * which each container's shim keeps its FIFOs and exit file. Files are
 * replaced atomically (write, then rename) and readable by root only, since a
 * container's config holds its environment.
 */
export class RuntimeStateStore {
  constructor(readonly dir: string) {
    mkdirSync(join(dir, 'sandboxes'), { recursive: true, mode: 0o700 });
    mkdirSync(join(dir, 'containers'), { recursive: true, mode: 0o700 });
  }

  containerDir(id: string): string {
    return join(this.dir, 'containers', id);
  }

  saveSandbox(s: SandboxState): void {
    this.write(join(this.dir, 'sandboxes', `${s.status.id}.json`), s);
  }

  removeSandbox(id: string): void {
    rmSync(join(this.dir, 'sandboxes', `${id}.json`), { force: true });
  }

  saveContainer(c: ContainerState): void {
    const dir = this.containerDir(c.status.id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.write(join(dir, 'state.json'), c);
  }

  removeContainer(id: string): void {
    rmSync(this.containerDir(id), { recursive: true, force: true });
  }

  /** Everything recorded; unreadable entries (a crash mid-write leaves none, but a disk may) are skipped. */
  load(): { sandboxes: SandboxState[]; containers: ContainerState[] } {
    const sandboxes: SandboxState[] = [];
    for (const f of readdirSync(join(this.dir, 'sandboxes')).filter((n) => n.endsWith('.json'))) {
      const s = readJson<SandboxState>(join(this.dir, 'sandboxes', f));
      if (s) sandboxes.push({ ...s, status: revive(s.status) });
    }
    const containers: ContainerState[] = [];
    for (const id of readdirSync(join(this.dir, 'containers'))) {
      const c = readJson<ContainerState>(join(this.containerDir(id), 'state.json'));
      if (c) containers.push({ ...c, status: revive(c.status) });
    }
    return { sandboxes, containers };
  }

  private write(path: string, value: unknown): void {
    const tmp = `${path}.tmp`;
    writeFileSync(tmp, JSON.stringify(value), { mode: 0o600 });
    renameSync(tmp, path);
  }
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
