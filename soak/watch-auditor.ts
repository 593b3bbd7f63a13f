import https from 'node:https';
import type { ApiClient } from './api-client.js';

export interface WatchEventObject {
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion: string };
  [key: string]: unknown;
}

/** A stretch of history a watcher claims to have seen completely: events with from < rv <= to. */
export interface Segment {
  from: number;
  to: number;
}

/**
 * An informer-like watcher of one collection that audits what it is told:
 * it lists, then watches from the list's resourceVersion through whichever
 * API server answers, resuming from the last resourceVersion it saw after a
 * disconnect. Within a stretch of history every event's resourceVersion
 * must be larger than the one before; a `410 Gone` ends the stretch and a
 * relist starts the next one. `seen` keeps the (name, resourceVersion)
 * pairs, so the gap check can ask whether every acknowledged write inside a
 * stretch was delivered.
 */
export class WatchAuditor {
  readonly segments: Segment[] = [];
  readonly seen = new Set<string>();
  readonly violations: string[] = [];
  events = 0;
  reconnects = 0;
  relists = 0;
  private current: ReturnType<typeof https.request> | undefined;

  constructor(
    readonly name: string,
    private readonly client: ApiClient,
    /** The collection's path, e.g. /api/v1/namespaces/soak/configmaps. */
    readonly collection: string,
    private readonly onEvent: (type: string, obj: WatchEventObject) => void = () => undefined,
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    signal.addEventListener('abort', () => this.current?.destroy(), { once: true });
    let rv: number | undefined;
    while (!signal.aborted) {
      try {
        if (rv === undefined) {
          rv = await this.list();
          this.segments.push({ from: rv, to: rv });
        }
        rv = await this.follow(rv, signal);
      } catch (err) {
        if (err instanceof GoneError) {
          this.relists++;
          rv = undefined;
        }
        // otherwise: the server died or closed the watch; resume from rv, elsewhere if need be
      }
      if (signal.aborted) return;
      this.reconnects++;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async list(): Promise<number> {
    const answer = await this.client.request<{ metadata: { resourceVersion: string } }>('GET', `${this.collection}?limit=500`);
    if (answer.status !== 200) throw new Error(`list answered ${answer.status}`);
    return Number(answer.json.metadata.resourceVersion);
  }

  /** Follows one watch connection; resolves with the last resourceVersion seen when it ends. */
  private follow(from: number, signal: AbortSignal): Promise<number> {
    let rv = from;
    const segment = this.segments.at(-1)!;
    return new Promise((resolve, reject) => {
      const path = `${this.collection}?watch=true&resourceVersion=${from}&allowWatchBookmarks=true&timeoutSeconds=120`;
      const req = https.request({ host: '127.0.0.1', port: this.client.nextPort(), method: 'GET', path, agent: this.client.agent }, (res) => {
        if (res.statusCode === 410) {
          res.resume();
          reject(new GoneError());
          return;
        }
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`watch answered ${res.statusCode}`));
          return;
        }
        let buffered = '';
        res.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          let nl;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            if (!line.trim()) continue;
            const ev = JSON.parse(line) as { type: string; object: WatchEventObject & { code?: number } };
            if (ev.type === 'ERROR') {
              req.destroy();
              reject(ev.object.code === 410 ? new GoneError() : new Error(`watch error ${line.slice(0, 300)}`));
              return;
            }
            const next = Number(ev.object.metadata.resourceVersion);
            if (ev.type === 'BOOKMARK') {
              if (next < rv) this.violations.push(`${this.name}: bookmark at ${next} after ${rv}`);
              rv = Math.max(rv, next);
              segment.to = rv;
              continue;
            }
            this.events++;
            if (!(next > rv)) this.violations.push(`${this.name}: ${ev.type} ${ev.object.metadata.name} at ${next} after ${rv} (out of order)`);
            rv = Math.max(rv, next);
            segment.to = rv;
            this.seen.add(`${ev.object.metadata.name}@${next}`);
            this.onEvent(ev.type, ev.object);
          }
        });
        res.on('end', () => resolve(rv));
        res.on('error', () => resolve(rv));
        res.on('aborted', () => resolve(rv));
      });
      req.on('error', () => resolve(rv));
      req.end();
      this.current = req;
      if (signal.aborted) req.destroy();
    });
  }

  /** Acknowledged writes inside a stretch this watcher covered that it was never told about. */
  gaps(acks: readonly { name: string; rv: number }[]): { name: string; rv: number }[] {
    return acks.filter((a) => this.segments.some((s) => a.rv > s.from && a.rv <= s.to) && !this.seen.has(`${a.name}@${a.rv}`));
  }
}

class GoneError extends Error {
  constructor() {
    super('410 Gone: relist');
  }
}
