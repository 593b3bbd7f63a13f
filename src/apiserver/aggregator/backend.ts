import https from 'node:https';
import type { APIService } from '../../api/types/apiregistration/v1.js';
import type { ApiRegistry } from '../api-registry.js';
import { resolveService } from '../outbound/service-resolver.js';

/** The aggregator's client certificate (kubeadm's front-proxy-client). */
export interface ProxyClientCertificate {
  certPem: string;
  keyPem: string;
}

/** Where and how to reach an extension API server. */
export interface Backend {
  host: string;
  port: number;
  /** `https://<ip>:<port>`, as upstream's endpoint resolver names it in errors. */
  origin: string;
  tls: Pick<https.RequestOptions, 'ca' | 'servername' | 'rejectUnauthorized' | 'cert' | 'key'>;
}

/**
 * Resolves an APIService's Service to one of its endpoints (as
 * `--enable-aggregator-routing`: skiff's API server does not rely on a proxy
 * for ClusterIPs) and the TLS settings to reach it: the `caBundle` and the
 * server name `<service>.<namespace>.svc`, or no verification with
 * `insecureSkipTLSVerify`; the front-proxy client certificate, if any.
 * Throws what resolveService throws (503s).
 */
export async function resolveBackend(registry: ApiRegistry, svc: APIService, client: ProxyClientCertificate | undefined): Promise<Backend> {
  const ref = svc.spec!.service!;
  const address = await resolveService(registry, ref.namespace ?? '', ref.name ?? '', ref.port ?? 443);
  const caBundle = svc.spec?.caBundle ? Buffer.from(svc.spec.caBundle, 'base64').toString('utf8') : undefined;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    host: address.host,
    port: address.port,
    origin: `https://${host}:${address.port}`,
    tls: {
      ...(svc.spec?.insecureSkipTLSVerify ? { rejectUnauthorized: false } : { ca: caBundle, servername: address.serverName, rejectUnauthorized: true }),
      ...(client ? { cert: client.certPem, key: client.keyPem } : {}),
    },
  };
}

/** Go's wording of a failed dial or handshake, as upstream's errors read. */
export function describeBackendError(err: NodeJS.ErrnoException, backend: Backend): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${backend.host}:${backend.port}: connect: connection refused`;
    case 'ECONNRESET':
      return `read tcp ${backend.host}:${backend.port}: read: connection reset by peer`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    default:
      return err.message;
  }
}
