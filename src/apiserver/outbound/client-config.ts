import type { WebhookClientConfig } from 'kubernetes-types/admissionregistration/v1.js';
import type { ApiRegistry } from '../api-registry.js';
import type { OutboundTarget } from './https-json-client.js';
import { resolveService } from './service-resolver.js';

/**
 * The HTTPS target of a webhook client config (admission and conversion
 * webhooks share the shape): the URL as given, or the Service's
 * `https://<name>.<namespace>.svc:<port><path>` dialled at its resolved
 * address. `timeout=<n>s` is added to the query, as upstream does.
 */
export async function resolveClientConfig(registry: ApiRegistry, cc: WebhookClientConfig, timeoutSeconds: number): Promise<OutboundTarget> {
  const caPem = cc.caBundle ? Buffer.from(cc.caBundle, 'base64').toString('utf8') : undefined;
  if (cc.url !== undefined) {
    const url = new URL(cc.url);
    url.searchParams.set('timeout', `${timeoutSeconds}s`);
    return { url, caPem };
  }
  const svc = cc.service!;
  const port = svc.port ?? 443;
  const url = new URL(`https://${svc.name}.${svc.namespace}.svc:${port}${svc.path ?? ''}`);
  url.searchParams.set('timeout', `${timeoutSeconds}s`);
  const address = await resolveService(registry, svc.namespace, svc.name, port);
  return { url, caPem, serverName: address.serverName, dial: { host: address.host, port: address.port } };
}
