import type { ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { ServiceAccount } from 'kubernetes-types/core/v1.js';
import { Client, defaultRestConfig, isNotFound, isAlreadyExists } from '../../client/rest/index.js';
import { InvalidDurationError, parseDuration } from '../../machinery/duration.js';
import type { ComponentCommand } from '../command.js';
import { UsageError } from '../flags.js';
import { CLUSTER_ROLE_BINDINGS, SERVICE_ACCOUNTS } from '../../api/resource-refs.js';

const DEFAULT_ACCOUNT = 'kube-system/skiff-dashboard';

/** `ns/name` → parts; the namespace defaults to `default`. */
function parseAccount(value: string): { namespace: string; name: string } {
  const [a, b] = value.includes('/') ? value.split('/', 2) : ['default', value];
  if (!a || !b) throw new UsageError(`--service-account wants NAMESPACE/NAME, got ${JSON.stringify(value)}`);
  return { namespace: a, name: b };
}

/**
 * The default account is created on first use and bound to cluster-admin,
 * like the admin-user of the Kubernetes dashboard's documentation; any other
 * account must exist already and keeps exactly the rights RBAC gives it.
 */
async function ensureDefaultAccount(client: Client, namespace: string, name: string): Promise<boolean> {
  const accounts = client.resource<ServiceAccount>(SERVICE_ACCOUNTS).namespace(namespace);
  let created = false;
  try {
    await accounts.get(name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await accounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
    created = true;
  }
  const bindings = client.resource<ClusterRoleBinding>(CLUSTER_ROLE_BINDINGS);
  try {
    await bindings.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${name}-cluster-admin`, labels: { 'app.kubernetes.io/managed-by': 'skiff-dashboard' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    });
    created = true;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  return created;
}

export const command: ComponentCommand = {
  name: 'dashboard',
  summary: 'Print a login link to the web dashboard (/ui/) with a short-lived service-account token.',
  flags: {
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig of a user allowed to create service-account tokens (default: $KUBECONFIG, ~/.kube/config)' },
    'service-account': { type: 'string', default: DEFAULT_ACCOUNT, description: `NAMESPACE/NAME whose token the link carries; ${DEFAULT_ACCOUNT} is created and bound to cluster-admin on first use` },
    duration: { type: 'string', default: '1h', description: 'token lifetime (e.g. 10m, 1h; at least 10m as upstream requires)' },
    namespace: { type: 'string', default: '', description: 'namespace the dashboard opens in (for accounts that may not list every namespace)' },
  },
  async run(flags) {
    const seconds = tokenSeconds(String(flags.duration ?? '1h'));
    const { namespace, name } = parseAccount(String(flags['service-account'] || DEFAULT_ACCOUNT));
    const config = defaultRestConfig({ kubeconfig: String(flags.kubeconfig ?? '') || undefined });
    const client = new Client(config, { component: 'dashboard' });
    try {
      if (`${namespace}/${name}` === DEFAULT_ACCOUNT && (await ensureDefaultAccount(client, namespace, name))) {
        process.stderr.write(`created service account ${DEFAULT_ACCOUNT} bound to cluster-admin\n`);
      }
      const review = await client.rest.request<{ status?: { token?: string; expirationTimestamp?: string } }>({
        method: 'POST',
        path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}/token`,
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: seconds } },
      });
      const token = review.status?.token;
      if (!token) throw new Error('the API server returned a TokenRequest without a token');
      const fragment = new URLSearchParams({ token });
      if (flags.namespace) fragment.set('namespace', String(flags.namespace));
      process.stdout.write(`${config.server.replace(/\/+$/, '')}/ui/#${fragment.toString()}\n`);
      process.stderr.write(`the link logs in as system:serviceaccount:${namespace}:${name} until ${review.status?.expirationTimestamp ?? 'the token expires'}\n`);
    } finally {
      client.close();
    }
  },
};

/** A Go duration (`10m`, `1h30m`) → whole seconds, at least 600 (TokenRequest's minimum). */
function tokenSeconds(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    if (err instanceof InvalidDurationError) throw new UsageError(`invalid --duration: ${err.message}`);
    throw err;
  }
  if (ms < 600_000) throw new UsageError(`--duration ${text} is shorter than 10m, the shortest token lifetime the API server issues`);
  return Math.floor(ms / 1000);
}
