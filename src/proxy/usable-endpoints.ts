import type { ServiceEndpoint } from './service-port.js';

/**
 * The endpoints traffic may go to (upstream's CategorizeEndpoints, without
 * topology hints): the ready ones; failing those, the ones still serving
 * while terminating, so connections drain instead of failing. With a Local
 * traffic policy only this node's endpoints qualify.
 */
export function usableEndpoints(endpoints: readonly ServiceEndpoint[], local?: { nodeName: string }): ServiceEndpoint[] {
  const candidates = local ? endpoints.filter((e) => e.nodeName === local.nodeName) : endpoints;
  const ready = candidates.filter((e) => e.ready);
  if (ready.length > 0) return ready;
  return candidates.filter((e) => e.serving && e.terminating);
}
