import type { ApiObject } from './api-object.js';
import { findResource } from '../../api/resources.js';
import { RestClient, type RestClientOptions } from './rest-client.js';
import type { RestConfig } from './rest-config.js';
import { ResourceClient } from './resource-client.js';
import type { GroupVersionResource } from './resource-path.js';

/**
 * The façade components hold: one RestClient (one connection pool, one rate
 * limiter) and typed ResourceClients on top of it.
 */
export class Client {
  readonly rest: RestClient;

  constructor(config: RestConfig, options: RestClientOptions = {}) {
    this.rest = new RestClient(config, options);
  }

  /**
   * Typed access to a resource. Scope comes from the served-resource table;
   * pass `namespaced` for resources not in it (e.g. custom resources).
   */
  resource<T extends ApiObject = ApiObject>(gvr: GroupVersionResource, options: { namespaced?: boolean } = {}): ResourceClient<T> {
    const namespaced = options.namespaced ?? findResource(gvr.group, gvr.version, gvr.resource)?.namespaced ?? true;
    return new ResourceClient<T>(this.rest, gvr, namespaced);
  }

  close(): void {
    this.rest.close();
  }
}
