import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type { ServiceAccount } from 'kubernetes-types/core/v1.js';
import { SERVICE_ACCOUNTS } from '../api/resource-refs.js';
import { realClock, type Clock } from '../base/clock.js';
import { Client } from '../client/rest/client.js';
import { isAlreadyExists } from '../client/rest/error-predicates.js';
import type { RestConfig } from '../client/rest/rest-config.js';
import type { Logger } from '../machinery/logger.js';

/**
 * The service account each controller runs as with upstream's
 * `--use-service-account-credentials` (kube-system/<name>, bound to
 * `system:controller:<name>` by the default policy). Controllers not listed
 * use the controller manager's own credentials.
 */
export const CONTROLLER_SERVICE_ACCOUNTS: Readonly<Record<string, string>> = {
  'clusterrole-aggregation': 'clusterrole-aggregation-controller',
  cronjob: 'cronjob-controller',
  csrapproving: 'certificate-controller',
  csrsigning: 'certificate-controller',
  daemonset: 'daemon-set-controller',
  deployment: 'deployment-controller',
  disruption: 'disruption-controller',
  endpoint: 'endpoint-controller',
  endpointslice: 'endpointslice-controller',
  garbagecollector: 'generic-garbage-collector',
  horizontalpodautoscaling: 'horizontal-pod-autoscaler',
  job: 'job-controller',
  namespace: 'namespace-controller',
  nodeipam: 'node-controller',
  nodelifecycle: 'node-controller',
  'persistentvolume-binder': 'persistent-volume-binder',
  'local-path-provisioner': 'local-path-provisioner',
  'taint-eviction-controller': 'node-controller',
  podgc: 'pod-garbage-collector',
  'pvc-protection': 'pvc-protection-controller',
  'pv-protection': 'pv-protection-controller',
  replicaset: 'replicaset-controller',
  replicationcontroller: 'replication-controller',
  resourcequota: 'resourcequota-controller',
  'root-ca-cert-publisher': 'root-ca-cert-publisher',
  serviceaccount: 'service-account-controller',
  servicelb: 'service-controller',
  statefulset: 'statefulset-controller',
  tokencleaner: 'token-cleaner',
  'ttl-after-finished': 'ttl-after-finished-controller',
};

const NAMESPACE = 'kube-system';
const TOKEN_SECONDS = 3600;

export interface ServiceAccountCredentialsOptions {
  /** The controller manager's own client (may create service accounts and their tokens in kube-system). */
  client: Client;
  /** Server, CA and rate limits of the clients handed out (their credentials are dropped). */
  base: RestConfig;
  logger: Logger;
  clock?: Clock;
}

/**
 * Upstream's SAControllerClientBuilder: for each controller, makes sure its
 * service account exists and hands out a client whose bearer token comes
 * from the TokenRequest API, renewed when 80% of its life has passed.
 */
export class ServiceAccountCredentials {
  private readonly tokens = new Map<string, { token: string; renewing: Promise<void> }>();
  private readonly clock: Clock;

  constructor(private readonly opts: ServiceAccountCredentialsOptions) {
    this.clock = opts.clock ?? realClock;
  }

  /** A client acting as kube-system/<serviceAccount>; resolves once its first token is issued. */
  async clientFor(serviceAccount: string, component: string, signal: AbortSignal): Promise<Client> {
    let entry = this.tokens.get(serviceAccount);
    if (!entry) {
      await this.ensureServiceAccount(serviceAccount, signal);
      const first = await this.requestToken(serviceAccount, signal);
      const current = { token: first.token, renewing: Promise.resolve() };
      current.renewing = this.renew(serviceAccount, current, first.expiresInMs, signal);
      this.tokens.set(serviceAccount, current);
      entry = current;
    }
    const held = entry;
    const { cert: _cert, key: _key, token: _token, tokenFile: _file, username: _u, password: _p, ...rest } = this.opts.base;
    return new Client({ ...rest, tokenSource: () => held.token }, { component });
  }

  /** Resolves once every renewal loop has stopped (after the signal aborted). */
  async stopped(): Promise<void> {
    await Promise.all([...this.tokens.values()].map((t) => t.renewing));
  }

  private async ensureServiceAccount(name: string, signal: AbortSignal): Promise<void> {
    const sas = this.opts.client.resource<ServiceAccount>(SERVICE_ACCOUNTS).namespace(NAMESPACE);
    try {
      await sas.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: NAMESPACE } }, { signal });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  private async requestToken(name: string, signal: AbortSignal): Promise<{ token: string; expiresInMs: number }> {
    const sas = this.opts.client.resource<ServiceAccount>(SERVICE_ACCOUNTS).namespace(NAMESPACE);
    const body: TokenRequest = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [], expirationSeconds: TOKEN_SECONDS } };
    const answer = await sas.createSubresource<TokenRequest>(name, 'token', body, { signal });
    const token = answer.status?.token ?? '';
    const expires = Date.parse(answer.status?.expirationTimestamp ?? '');
    const expiresInMs = Number.isFinite(expires) ? expires - this.clock.now() : TOKEN_SECONDS * 1000;
    return { token, expiresInMs };
  }

  private async renew(name: string, entry: { token: string }, expiresInMs: number, signal: AbortSignal): Promise<void> {
    let wait = expiresInMs * 0.8;
    while (!signal.aborted) {
      await this.clock.sleep(Math.max(1000, wait), signal);
      if (signal.aborted) return;
      try {
        const next = await this.requestToken(name, signal);
        entry.token = next.token;
        wait = next.expiresInMs * 0.8;
      } catch (err) {
        if (signal.aborted) return;
        this.opts.logger.warn('renewing a controller token failed; retrying', { serviceAccount: name, error: err instanceof Error ? err.message : String(err) });
        wait = 10_000;
      }
    }
  }
}
