import type { IncomingMessage, ServerResponse } from 'node:http';
import { posix } from 'node:path';
import type { Duplex } from 'node:stream';
import { notFound } from '../../machinery/api-error.js';
import type { ApiRegistry } from '../api-registry.js';
import type { KubeletClientTls } from '../kubelet-proxy/kubelet-proxy.js';
import type { RequestInfo } from '../request-info.js';
import { forwardRequest, forwardUpgrade, type ProxyTarget } from './forward-request.js';
import { nodeProxyLocation, podProxyLocation, serviceProxyLocation, type ProxyLocation } from './proxy-location.js';

/** The resources with a `proxy` subresource. */
export const PROXIED_RESOURCES = new Set(['pods', 'services', 'nodes']);

/**
 * The `pods/proxy`, `services/proxy` and `nodes/proxy` subresources: the API
 * server as an HTTP proxy to a pod's IP, a ready endpoint of a Service, or a
 * node's kubelet (or another port on the node).
 */
export class ResourceProxy {
  constructor(
    private readonly registry: ApiRegistry,
    private readonly kubeletTls: KubeletClientTls,
    /** The API server's request timeout: proxy requests are long-running, but a backend must answer within it. */
    private readonly timeoutMs: number,
  ) {}

  async serve(info: RequestInfo, req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    await forwardRequest(req, res, await this.target(info, req), signal);
  }

  async upgrade(info: RequestInfo, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    await forwardUpgrade(req, socket, head, await this.target(info, req));
  }

  private async target(info: RequestInfo, req: IncomingMessage): Promise<ProxyTarget> {
    const location = await this.locate(info);
    // the path as the request info read it (dot segments resolved), so prefix and target path agree with what was authorized
    const { prefix, path } = splitProxyPath(new URL(req.url ?? '/', 'https://apiserver').pathname, info);
    return { location, prefix, path, timeoutMs: this.timeoutMs, ...(location.kubelet ? { clientTls: this.kubeletTls } : {}) };
  }

  private locate(info: RequestInfo): Promise<ProxyLocation> {
    switch (info.resource) {
      case 'pods':
        return podProxyLocation(this.registry, info.namespace, info.name);
      case 'services':
        return serviceProxyLocation(this.registry, info.namespace, info.name);
      case 'nodes':
        return nodeProxyLocation(this.registry, info.name);
    }
    throw notFound({ group: info.group, resource: `${info.resource}/proxy` }, info.name);
  }
}

/**
 * Splits a request path at its `/proxy` segment: the prefix up to it and the backend path after it, cleaned as upstream's
 * path.Join cleans it, a trailing slash kept.
 */
export function splitProxyPath(pathname: string, info: RequestInfo): { prefix: string; path: string } {
  // api|apis, [group], version, [namespaces, ns], resource, name, proxy
  const segments = 1 + (info.apiPrefix === 'apis' ? 1 : 0) + 1 + (info.namespace ? 2 : 0) + 3;
  let seen = 0;
  let i = 0;
  while (i < pathname.length && seen < segments) {
    while (pathname[i] === '/') i++;
    while (i < pathname.length && pathname[i] !== '/') i++;
    seen++;
  }
  const prefix = pathname.slice(0, i);
  const rest = pathname.slice(i);
  if (rest === '' || /^\/+$/.test(rest)) return { prefix, path: rest === '' ? '' : '/' };
  let path = posix.normalize(rest.startsWith('/') ? rest : `/${rest}`);
  if (rest.endsWith('/') && !path.endsWith('/')) path += '/';
  return { prefix, path };
}
