import type { Pod } from 'kubernetes-types/core/v1.js';
import { isAlreadyExists, isConflict, isNotFound, type Client } from '../../client/rest/index.js';
import type { Logger } from '../../machinery/logger.js';
import { CONFIG_HASH_ANNOTATION, CONFIG_MIRROR_ANNOTATION } from './static-pod-manifest.js';
import { PODS } from '../../api/resource-refs.js';

export interface MirrorPodsOptions {
  client: Client;
  nodeName: string;
  /** The Node's uid, for the mirror pods' owner reference. */
  nodeUid: string;
  /** This node's mirror pods as the API server has them (an informer's view). */
  mirrors: () => readonly Pod[];
  logger: Logger;
  /** A mirror pod was (re)created for this static pod uid: its status must be written again. */
  onCreated(staticUid: string): void;
}

/**
 * Keeps one mirror pod in the API server per static pod: same name, namespace
 * and spec, annotated `kubernetes.io/config.mirror: <hash>` and owned by the
 * Node. A mirror that is stale (other hash), being deleted (someone ran
 * `kubectl delete pod`), or left without a static pod is removed at once; a
 * missing one is created. Level-triggered: `request()` re-runs the whole
 * comparison, coalescing calls.
 */
export class MirrorPods {
  private desired: ReadonlyMap<string, Pod> = new Map();
  private running?: Promise<void>;
  private again = false;

  constructor(private readonly opts: MirrorPodsOptions) {}

  setDesired(pods: ReadonlyMap<string, Pod>): Promise<void> {
    this.desired = pods;
    return this.request();
  }

  request(): Promise<void> {
    this.again = true;
    this.running ??= (async () => {
      while (this.again) {
        this.again = false;
        await this.sync().catch((err: unknown) => this.opts.logger.warn('mirror pod sync failed', { error: err instanceof Error ? err.message : String(err) }));
      }
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Resyncs periodically until aborted (heals missed events and failed writes). */
  async run(signal: AbortSignal, periodMs = 10_000): Promise<void> {
    const timer = setInterval(() => void this.request(), periodMs);
    await new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    clearInterval(timer);
    await this.running;
  }

  private async sync(): Promise<void> {
    const byKey = new Map([...this.desired.values()].map((p) => [key(p), p]));
    const ok = new Set<string>();
    for (const mirror of this.opts.mirrors()) {
      const k = key(mirror);
      const pod = byKey.get(k);
      const current = pod && !mirror.metadata?.deletionTimestamp && mirror.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] === hash(pod);
      if (current) ok.add(k);
      else await this.delete(mirror);
    }
    for (const [k, pod] of byKey) if (!ok.has(k)) await this.create(pod);
  }

  private async create(pod: Pod): Promise<void> {
    const mirror: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: pod.metadata?.name,
        namespace: pod.metadata?.namespace,
        labels: pod.metadata?.labels,
        annotations: { ...pod.metadata?.annotations, [CONFIG_MIRROR_ANNOTATION]: hash(pod) },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.opts.nodeName, uid: this.opts.nodeUid, controller: true }],
      },
      spec: structuredClone(pod.spec),
    };
    try {
      await this.opts.client.resource<Pod>(PODS).namespace(pod.metadata?.namespace ?? 'default').create(mirror);
      this.opts.logger.info('created mirror pod', { pod: key(pod) });
      this.opts.onCreated(pod.metadata?.uid ?? '');
    } catch (err) {
      // the informer has not seen our last create yet; the next sync compares again
      if (!isAlreadyExists(err)) throw err;
    }
  }

  private async delete(mirror: Pod): Promise<void> {
    try {
      await this.opts.client.resource<Pod>(PODS).namespace(mirror.metadata?.namespace ?? 'default').delete(mirror.metadata?.name ?? '', {
        gracePeriodSeconds: 0,
        preconditions: { uid: mirror.metadata?.uid },
      });
      this.opts.logger.info('deleted mirror pod', { pod: key(mirror) });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
}

function key(p: Pod): string {
  return `${p.metadata?.namespace ?? 'default'}/${p.metadata?.name ?? ''}`;
}

function hash(p: Pod): string {
  return p.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ?? p.metadata?.uid ?? '';
}
