import { readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Logger } from '../../machinery/logger.js';
import { ManifestError, parseManifest } from './static-pod-manifest.js';

export interface StaticPodSourceOptions {
  /** A directory of manifests, or one manifest file. */
  path: string;
  nodeName: string;
  logger: Logger;
  /** Rescan period; file events make most changes quicker. Upstream checks every 20 s. */
  periodMs?: number;
  /** Called with the full desired set whenever it changed. */
  onChange(pods: ReadonlyMap<string, Pod>): void;
}

/**
 * The kubelet's file config source: watches a manifest directory and reports
 * the static pods it describes, keyed by uid. Files starting with a dot are
 * skipped, as upstream; a file that does not parse is logged and skipped.
 */
export class StaticPodSource {
  private current = new Map<string, Pod>();
  private readonly errors = new Map<string, string>();
  private watcher?: FSWatcher;

  constructor(private readonly opts: StaticPodSourceOptions) {}

  /** The static pods as of the last scan. */
  get pods(): ReadonlyMap<string, Pod> {
    return this.current;
  }

  /** Scans now; returns whether the set changed. */
  scan(): boolean {
    const next = new Map<string, Pod>();
    for (const file of this.files()) {
      try {
        const pod = parseManifest(readFileSync(file, 'utf8'), file, this.opts.nodeName);
        next.set(pod.metadata!.uid!, pod);
        this.errors.delete(file);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (this.errors.get(file) !== message) this.opts.logger.warn('skipping static pod manifest', { file, error: message, manifestError: err instanceof ManifestError });
        this.errors.set(file, message);
      }
    }
    const changed = next.size !== this.current.size || [...next.keys()].some((uid) => !this.current.has(uid));
    this.current = next;
    if (changed) this.opts.onChange(next);
    return changed;
  }

  async run(signal: AbortSignal): Promise<void> {
    let debounce: NodeJS.Timeout | undefined;
    const soon = () => {
      clearTimeout(debounce);
      debounce = setTimeout(() => this.scan(), 100);
    };
    const tick = () => {
      // the directory may appear after we start: keep trying to watch it
      this.watcher ??= this.watch(soon);
      this.scan();
    };
    tick();
    const timer = setInterval(tick, this.opts.periodMs ?? 20_000);
    await new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    clearInterval(timer);
    clearTimeout(debounce);
    this.watcher?.close();
    this.watcher = undefined;
  }

  private watch(onEvent: () => void): FSWatcher | undefined {
    try {
      const w = watch(this.opts.path, onEvent);
      w.on('error', () => {
        w.close();
        this.watcher = undefined;
      });
      return w;
    } catch {
      return undefined;
    }
  }

  private files(): string[] {
    let st;
    try {
      st = statSync(this.opts.path);
    } catch {
      return [];
    }
    if (st.isFile()) return [this.opts.path];
    return readdirSync(this.opts.path)
      .filter((f) => !f.startsWith('.'))
      .sort()
      .map((f) => join(this.opts.path, f))
      .filter((f) => {
        try {
          return statSync(f).isFile();
        } catch {
          return false;
        }
      });
  }
}
