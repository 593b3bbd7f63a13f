import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import { asKind } from '../../api/object.js';
import { ApiError, serviceUnavailable } from '../../machinery/api-error.js';
import type { ApiRegistry } from '../api-registry.js';

/** Where a Service reference (webhook, conversion webhook, APIService) is dialled. */
export interface ServiceAddress {
  host: string;
  port: number;
  /** The TLS server name the backend's certificate must hold: `<name>.<namespace>.svc`, as upstream. */
  serverName: string;
}

/**
 * Resolves a Service reference the way the API server reaches webhooks and
 * aggregated APIs: an ExternalName Service is its external name (upstream's
 * cluster resolver does the same); any other Service is one of its ready
 * endpoint addresses on the endpoint port named like the Service port
 * (upstream's endpoint resolver, `--enable-aggregator-routing`), since skiff's
 * API server cannot rely on a proxy for ClusterIPs.
 */
export async function resolveService(registry: ApiRegistry, namespace: string, name: string, port: number): Promise<ServiceAddress> {
  const serverName = `${name}.${namespace}.svc`;
  const svcStore = registry.lookup('', 'v1', 'services')!;
  const svc = asKind<Service>(await svcStore.get(namespace, name).catch((err: unknown) => rethrow(err, `service "${name}" not found`)));
  const type = svc.spec?.type ?? 'ClusterIP';
  if (type === 'ExternalName') return { host: svc.spec?.externalName ?? '', port, serverName };
  if (!['ClusterIP', 'NodePort', 'LoadBalancer'].includes(type)) throw new Error(`unsupported service type "${type}"`);
  const svcPort = (svc.spec?.ports ?? []).find((p) => p.port === port);
  if (!svcPort) throw serviceUnavailable(`no service port ${port} found for service "${name}"`);
  const eps = asKind<Endpoints>(await registry.lookup('', 'v1', 'endpoints')!.get(namespace, name).catch((err: unknown) => rethrow(err, `endpoints "${name}" not found`)));
  const portName = svcPort.name ?? '';
  for (const subset of eps.subsets ?? []) {
    const epPort = (subset.ports ?? []).find((p) => (p.name ?? '') === portName);
    const addresses = subset.addresses ?? [];
    if (!epPort || addresses.length === 0) continue;
    const addr = addresses[Math.floor(Math.random() * addresses.length)];
    return { host: addr.ip, port: epPort.port, serverName };
  }
  throw serviceUnavailable(`no endpoints available for service "${name}"`);
}

function rethrow(err: unknown, notFoundMessage: string): never {
  if (ApiError.is(err, 'NotFound')) throw serviceUnavailable(notFoundMessage);
  throw err;
}
