import { readdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { realClock, type Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import type { ContainerStatus } from '../runtime/runtime.js';

/** Upstream's defaults: --container-log-max-size 10Mi, --container-log-max-files 5, checked every 10 s. */
export const DEFAULT_CONTAINER_LOG_MAX_SIZE = 10 * 1024 * 1024;
export const DEFAULT_CONTAINER_LOG_MAX_FILES = 5;
const MONITOR_PERIOD_MS = 10_000;

/** `YYYYMMDD-HHMMSS` (UTC), the suffix a rotated log gets, as upstream's container log manager names them. */
export function rotationSuffix(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** Whether `name` is a rotated file of the log named `base` (`0.log.20240102-030405`). */
export function isRotatedLogOf(base: string, name: string): boolean {
  return name.startsWith(`${base}.`) && /^\d{8}-\d{6}$/.test(name.slice(base.length + 1));
}

/** What the rotator needs of the runtime: the running containers and CRI's ReopenContainerLog. */
export interface LogReopeningRuntime {
  listContainers(): Promise<ContainerStatus[]>;
  /** Makes the runtime close the container's log file and open a new one at the same path. */
  reopenContainerLog(id: string): Promise<void>;
}

export function canReopenLogs(r: object): r is LogReopeningRuntime {
  return 'reopenContainerLog' in r && 'listContainers' in r;
}

export interface ContainerLogRotatorOptions {
  runtime: LogReopeningRuntime;
  /** Bytes a live log may reach before it is rotated (--container-log-max-size). */
  maxSize?: number;
  /** Files kept per container, the live one included (--container-log-max-files, at least 2). */
  maxFiles?: number;
  logger: Logger;
  clock?: Clock;
}

/**
 * Rotates the CRI log files of running containers as upstream's container
 * log manager does: a live log over `maxSize` is renamed to
 * `<log>.<timestamp>` and the runtime is asked to reopen it
 * (ReopenContainerLog); if it cannot, the rename is undone. Before that, the
 * oldest rotated files go so that at most `maxFiles` remain with the new one.
 * (Upstream also gzips all but the newest rotated file; skiff keeps them
 * plain, so `kubectl logs` reads them as they are.)
 */
export class ContainerLogRotator {
  private readonly maxSize: number;
  private readonly maxFiles: number;
  private readonly clock: Clock;

  constructor(private readonly opts: ContainerLogRotatorOptions) {
    this.maxSize = opts.maxSize ?? DEFAULT_CONTAINER_LOG_MAX_SIZE;
    this.maxFiles = Math.max(2, opts.maxFiles ?? DEFAULT_CONTAINER_LOG_MAX_FILES);
    this.clock = opts.clock ?? realClock;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.rotateLogs().catch((err: unknown) => this.opts.logger.debug('container log rotation failed', { error: err instanceof Error ? err.message : String(err) }));
      await this.clock.sleep(MONITOR_PERIOD_MS, signal);
    }
  }

  /** One round over every running container; a failure with one does not stop the others. */
  async rotateLogs(): Promise<void> {
    for (const c of await this.opts.runtime.listContainers()) {
      if (c.state !== 'Running' || !c.logPath) continue;
      let size: number;
      try {
        size = statSync(c.logPath).size;
      } catch {
        continue; // not written yet
      }
      if (size < this.maxSize) continue;
      try {
        await this.rotate(c.id, c.logPath);
      } catch (err) {
        this.opts.logger.info('failed to rotate container log', { container: c.id, path: c.logPath, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  private async rotate(id: string, path: string): Promise<void> {
    this.removeExcess(path);
    const rotated = `${path}.${rotationSuffix(this.clock.now())}`;
    renameSync(path, rotated);
    try {
      await this.opts.runtime.reopenContainerLog(id);
    } catch (err) {
      // the container goes on writing to the renamed file: give it back its name
      renameSync(rotated, path);
      throw err;
    }
    this.opts.logger.debug('rotated container log', { container: id, path: rotated });
  }

  /** Keeps the newest `maxFiles - 2` rotated files: with the one about to be made and the live log, `maxFiles`. */
  private removeExcess(path: string): void {
    const base = basename(path);
    const rotated = readdirSync(dirname(path)).filter((n) => isRotatedLogOf(base, n)).sort();
    for (const name of rotated.slice(0, Math.max(0, rotated.length - (this.maxFiles - 2)))) {
      try {
        unlinkSync(join(dirname(path), name));
      } catch {
        // already gone
      }
    }
  }
}
