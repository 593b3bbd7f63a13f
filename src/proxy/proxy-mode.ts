import type { ServiceEndpoint, ServicePort } from './service-port.js';

/** Service port key → its endpoints (all of them; modes pick the usable ones). */
export type EndpointsMap = ReadonlyMap<string, readonly ServiceEndpoint[]>;

/**
 * How the proxy routes: given the complete desired state, make the node
 * forward each service port to its endpoints. Each sync is a full
 * replacement; stop() undoes everything the mode set up.
 */
export interface ProxyMode {
  readonly name: string;
  sync(services: readonly ServicePort[], endpoints: EndpointsMap): Promise<void>;
  stop(): Promise<void>;
}
