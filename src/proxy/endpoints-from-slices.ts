import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { servicePortKey, type ServiceEndpoint } from './service-port.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/**
 * Flattens EndpointSlices into endpoints per service port key (upstream's
 * EndpointSliceCache). Slices name their service by label and their ports by
 * the service port's name. The same ip:port from two slices (a transient
 * state while endpoints move between slices) counts once.
 */
export function endpointsFromSlices(slices: Iterable<EndpointSlice>): Map<string, ServiceEndpoint[]> {
  const out = new Map<string, Map<string, ServiceEndpoint>>();
  for (const slice of slices) {
    const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (!service || slice.addressType !== 'IPv4') continue;
    for (const port of slice.ports ?? []) {
      if (port.port === undefined) continue;
      const key = servicePortKey(slice.metadata?.namespace ?? '', service, port.name ?? '', port.protocol ?? 'TCP');
      let byAddress = out.get(key);
      if (!byAddress) out.set(key, (byAddress = new Map()));
      for (const ep of slice.endpoints ?? []) {
        const ip = ep.addresses[0];
        if (!ip) continue;
        // Absent conditions mean ready (the API's "unknown" is treated as ready).
        const ready = ep.conditions?.ready ?? true;
        const endpoint: ServiceEndpoint = {
          ip,
          port: port.port,
          ready,
          serving: ep.conditions?.serving ?? ready,
          terminating: ep.conditions?.terminating ?? false,
        };
        if (ep.nodeName) endpoint.nodeName = ep.nodeName;
        byAddress.set(`${ip}:${port.port}`, endpoint);
      }
    }
  }
  return new Map([...out].map(([k, m]) => [k, [...m.values()]]));
}
