import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../api/object.js';
import type { APIService, APIServiceCondition } from '../../api/types/apiregistration/v1.js';
import { formatTime } from '../../machinery/time.js';
import type { Clock } from '../../base/clock.js';
import { ApiError } from '../../machinery/api-error.js';
import type { Logger } from '../../machinery/logger.js';
import type { ApiRegistry } from '../api-registry.js';
import { resolveBackend, type ProxyClientCertificate } from './backend.js';
import { DiscoveryCheckError, fetchDiscovery } from './discovery-check.js';

/** The Available condition without its transition time. */
export type Availability = Pick<APIServiceCondition, 'status' | 'reason' | 'message'>;

export interface AvailabilityCheckDeps {
  registry: ApiRegistry;
  proxyClient?: ProxyClientCertificate;
  /** Hears the discovery document of every successful check (the discovery merge caches it). */
  onDiscovery?: (svc: APIService, doc: unknown) => void;
  signal?: AbortSignal;
}

/**
 * Upstream's availability checks, in order: a local APIService is always
 * available; a remote one needs its Service, (for ClusterIP) the port and
 * endpoints with an address on the port's name, and then an answer from
 * `/apis/<group>/<version>`. Reasons and messages are upstream's
 * (ServiceNotFound, ServicePortError, EndpointsNotFound, MissingEndpoints,
 * FailedDiscoveryCheck, Passed).
 */
export async function checkAvailability(svc: APIService, deps: AvailabilityCheckDeps): Promise<Availability> {
  const ref = svc.spec?.service;
  if (!ref) return { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };
  const name = ref.name ?? '';
  const ns = ref.namespace ?? '';
  const port = ref.port ?? 443;
  const service = await getOrUndefined<Service>(deps.registry, 'services', ns, name);
  if (!service) return { status: 'False', reason: 'ServiceNotFound', message: `service/${name} in "${ns}" is not present` };
  if ((service.spec?.type ?? 'ClusterIP') === 'ClusterIP') {
    const svcPort = (service.spec?.ports ?? []).find((p) => p.port === port);
    if (!svcPort) return { status: 'False', reason: 'ServicePortError', message: `service/${name} in "${ns}" is not listening on port ${port}` };
    const endpoints = await getOrUndefined<Endpoints>(deps.registry, 'endpoints', ns, name);
    if (!endpoints) return { status: 'False', reason: 'EndpointsNotFound', message: `cannot find endpoints for service/${name} in "${ns}"` };
    const portName = svcPort.name ?? '';
    const ready = (endpoints.subsets ?? []).some((s) => (s.addresses ?? []).length > 0 && (s.ports ?? []).some((p) => (p.name ?? '') === portName));
    if (!ready) return { status: 'False', reason: 'MissingEndpoints', message: `endpoints for service/${name} in "${ns}" have no addresses with port name "${portName}"` };
  }
  try {
    const backend = await resolveBackend(deps.registry, svc, deps.proxyClient);
    const doc = await fetchDiscovery(backend, svc, deps.signal);
    deps.onDiscovery?.(svc, doc);
  } catch (err) {
    if (err instanceof DiscoveryCheckError || err instanceof ApiError) return { status: 'False', reason: 'FailedDiscoveryCheck', message: err.message };
    throw err;
  }
  return { status: 'True', reason: 'Passed', message: 'all checks passed' };
}

async function getOrUndefined<T>(registry: ApiRegistry, resource: string, namespace: string, name: string): Promise<T | undefined> {
  try {
    return (await registry.lookup('', 'v1', resource)!.get(namespace, name)) as unknown as T;
  } catch (err) {
    if (ApiError.is(err, 'NotFound')) return undefined;
    throw err;
  }
}

export interface AvailabilityControllerOptions extends AvailabilityCheckDeps {
  logger: Logger;
  clock: Clock;
  signal: AbortSignal;
  /** The APIService to check, by name (the view's current object). */
  get(name: string): APIService | undefined;
  /** Every APIService name, for the periodic resync. */
  names(): string[];
  /** How often every APIService is checked again (upstream resyncs every 30 s and on Service/Endpoints changes). */
  resyncMs: number;
}

/**
 * Upstream's AvailableConditionController inside the API server: a queue of
 * APIService names (deduplicated; `enqueue` on every change, and all of them
 * every `resyncMs`), each checked and its `Available` condition written
 * through `/status` only when it changed (the transition time moves only
 * with the status).
 */
export class AvailabilityController {
  private readonly queue = new Set<string>();
  private wake: (() => void) | undefined;

  constructor(private readonly opts: AvailabilityControllerOptions) {}

  enqueue(name: string): void {
    this.queue.add(name);
    this.wake?.();
  }

  async run(): Promise<void> {
    const { signal, clock } = this.opts;
    const resync = (async () => {
      while (!signal.aborted) {
        await clock.sleep(this.opts.resyncMs, signal).catch(() => undefined);
        for (const name of this.opts.names()) this.enqueue(name);
      }
    })();
    while (!signal.aborted) {
      const [name] = this.queue;
      if (name === undefined) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        this.wake = undefined;
        continue;
      }
      this.queue.delete(name);
      try {
        await this.sync(name);
      } catch (err) {
        if (signal.aborted) break;
        this.opts.logger.warn('APIService availability check failed', { apiService: name, error: err instanceof Error ? err.message : String(err) });
      }
    }
    this.wake?.();
    await resync;
  }

  private async sync(name: string): Promise<void> {
    const svc = this.opts.get(name);
    if (!svc) return;
    const now = await checkAvailability(svc, this.opts);
    const current = (svc.status?.conditions ?? []).find((c) => c.type === 'Available');
    if (current && current.status === now.status && current.reason === now.reason && current.message === now.message) return;
    if (!current || current.status !== now.status) this.opts.logger.info('changing APIService availability', { name, status: now.status, reason: now.reason, message: now.message });
    const stamp = formatTime(new Date(this.opts.clock.now()));
    const store = this.opts.registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices')!;
    await store
      .update(
        '',
        name,
        (obj: KubeObject | undefined) => {
          const next = obj as unknown as APIService;
          const conditions = ((next.status ??= {}).conditions ??= []);
          const existing = conditions.find((c) => c.type === 'Available');
          if (!existing) conditions.push({ type: 'Available', ...now, lastTransitionTime: stamp });
          else {
            if (existing.status !== now.status) existing.lastTransitionTime = stamp;
            Object.assign(existing, now);
          }
          return next as unknown as KubeObject;
        },
        { dryRun: false, subresource: 'status' },
      )
      .catch((err: unknown) => {
        // deleted meanwhile: nothing to report on
        if (!ApiError.is(err, 'NotFound')) throw err;
      });
  }
}
