import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type { Pod, ServiceAccountTokenProjection } from 'kubernetes-types/core/v1.js';
import { SERVICE_ACCOUNTS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';
import type { Client } from '../../client/rest/client.js';
import type { Logger } from '../../machinery/logger.js';

interface Held {
  token: string;
  issuedAt: number;
  expiresAt: number;
}

const MAX_TTL_MS = 24 * 3600 * 1000;

/** The service-account token projections of a pod's volumes. */
function projections(pod: Pod): ServiceAccountTokenProjection[] {
  return (pod.spec?.volumes ?? []).flatMap((v) => (v.projected?.sources ?? []).flatMap((s) => (s.serviceAccountToken ? [s.serviceAccountToken] : [])));
}

/**
 * Upstream's kubelet token manager: bound service-account tokens for the
 * projected volumes of the pods here, requested through the TokenRequest
 * API (bound to the pod, so they die with it) and requested again once 80%
 * of their life, or 24 hours, has passed.
 */
export class TokenManager {
  private readonly tokens = new Map<string, Held>();
  private readonly clock: Clock;

  constructor(private readonly opts: { client: Client; logger: Logger; clock?: Clock }) {
    this.clock = opts.clock ?? realClock;
  }

  private key(pod: Pod, p: ServiceAccountTokenProjection): string {
    return [pod.metadata?.uid, pod.metadata?.namespace, pod.spec?.serviceAccountName, p.audience ?? '', p.expirationSeconds ?? 3600].join('/');
  }

  /** The current token for a projection, if one was fetched. */
  get(pod: Pod, p: ServiceAccountTokenProjection): string | undefined {
    return this.tokens.get(this.key(pod, p))?.token;
  }

  /** Fetches (or renews) the tokens the pod's volumes need; failures are logged and leave the old token, if any. */
  async refresh(pod: Pod): Promise<void> {
    for (const p of projections(pod)) {
      const key = this.key(pod, p);
      const held = this.tokens.get(key);
      if (held && !this.needsRefresh(held)) continue;
      try {
        this.tokens.set(key, await this.request(pod, p));
      } catch (err) {
        this.opts.logger.warn('requesting a service account token failed', { pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** Forgets a pod's tokens. */
  forget(pod: Pod): void {
    const prefix = `${pod.metadata?.uid}/`;
    for (const k of [...this.tokens.keys()]) if (k.startsWith(prefix)) this.tokens.delete(k);
  }

  private needsRefresh(held: Held): boolean {
    const now = this.clock.now();
    return now > held.expiresAt - (held.expiresAt - held.issuedAt) * 0.2 || now - held.issuedAt > MAX_TTL_MS;
  }

  private async request(pod: Pod, p: ServiceAccountTokenProjection): Promise<Held> {
    const sa = pod.spec?.serviceAccountName || 'default';
    const body: TokenRequest = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {
        audiences: p.audience ? [p.audience] : [],
        expirationSeconds: p.expirationSeconds ?? 3600,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name, uid: pod.metadata?.uid },
      },
    };
    const issuedAt = this.clock.now();
    const answer = await this.opts.client.resource(SERVICE_ACCOUNTS).namespace(pod.metadata?.namespace ?? 'default').createSubresource<TokenRequest>(sa, 'token', body);
    const expires = Date.parse(answer.status?.expirationTimestamp ?? '');
    return { token: answer.status?.token ?? '', issuedAt, expiresAt: Number.isFinite(expires) ? expires : issuedAt + (p.expirationSeconds ?? 3600) * 1000 };
  }
}
