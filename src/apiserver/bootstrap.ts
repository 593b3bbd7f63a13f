import { stringify } from 'yaml';
import { ApiError } from '../machinery/api-error.js';
import type { Logger } from '../machinery/logger.js';
import { SYSTEM_PRIORITY_CLASSES } from './admission/priority.js';
import type { ApiRegistry } from './api-registry.js';
import { ensureBootstrapPolicy } from './authorization/rbac/ensure-bootstrap-policy.js';
import type { RequestHeaderOptions } from './authentication/request-header.js';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * What every cluster has from the start: the system namespaces, the default
 * RBAC policy and the `kubernetes` Service in `default` pointing at the API server.
 */
export async function bootstrapCluster(
  registry: ApiRegistry,
  opts: { advertiseAddress: string; port: number; logger: Logger; caPem?: string; requestHeader?: RequestHeaderOptions },
): Promise<void> {
  const ensure = async (what: string, create: () => Promise<unknown>) => {
    try {
      await create();
      opts.logger.info('bootstrapped', { object: what });
    } catch (err) {
      if (!ApiError.is(err, 'AlreadyExists')) throw err;
    }
  };
  for (const name of SYSTEM_NAMESPACES) {
    await ensure(`namespace/${name}`, () =>
      registry.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false }),
    );
  }
  await ensureBootstrapPolicy(registry, opts.logger);
  if (opts.caPem) await ensureExtensionApiserverAuthentication(registry, opts.caPem, opts.requestHeader);
  if (opts.caPem) await ensureClusterInfo(registry, `https://${opts.advertiseAddress.includes(':') ? `[${opts.advertiseAddress}]` : opts.advertiseAddress}:${opts.port}`, opts.caPem);
  const priorityClasses = registry.lookup('scheduling.k8s.io', 'v1', 'priorityclasses')!;
  for (const pc of SYSTEM_PRIORITY_CLASSES) {
    await ensure(`priorityclass/${pc.name}`, () =>
      priorityClasses.create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: pc.name }, value: pc.value, description: pc.description }, { dryRun: false }),
    );
  }
  const services = registry.lookup('', 'v1', 'services')!;
  await ensure('service/default/kubernetes', () =>
    services.create(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: opts.port }] },
      },
      { dryRun: false },
    ),
  );
  const slices = registry.lookup('discovery.k8s.io', 'v1', 'endpointslices')!;
  await slices.guaranteedUpdate(
    'default',
    'kubernetes',
    () => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes', 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [opts.advertiseAddress], conditions: { ready: true } }],
      ports: [{ name: 'https', port: opts.port, protocol: 'TCP' }],
    }),
    { dryRun: false, allowCreate: true },
  );
  const endpoints = registry.lookup('', 'v1', 'endpoints')!;
  await endpoints.guaranteedUpdate(
    'default',
    'kubernetes',
    () => ({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: [{ addresses: [{ ip: opts.advertiseAddress }], ports: [{ name: 'https', port: opts.port, protocol: 'TCP' }] }],
    }),
    { dryRun: false, allowCreate: true },
  );
}

/**
 * kube-public/cluster-info (kubeadm's): a kubeconfig with only the server and
 * CA, readable without credentials, so a joining node can find the API
 * server and check its CA against the hash it was given.
 */
async function ensureClusterInfo(registry: ApiRegistry, server: string, caPem: string): Promise<void> {
  const kubeconfig = stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: '', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    contexts: null,
    'current-context': '',
    preferences: {},
    users: null,
  });
  await registry.lookup('', 'v1', 'configmaps')!.guaranteedUpdate(
    'kube-public',
    'cluster-info',
    (current) => ({ ...(current ?? { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' } }), data: { kubeconfig } }),
    { dryRun: false, allowCreate: true },
  );
}

/**
 * kube-system/extension-apiserver-authentication, as upstream's
 * ClusterAuthenticationTrustController publishes it: the client CA and the
 * request-header settings (CA, allowed names, header names as JSON lists),
 * so extension API servers know whom to trust. Rewritten at every start.
 */
async function ensureExtensionApiserverAuthentication(registry: ApiRegistry, clientCaPem: string, rh: RequestHeaderOptions | undefined): Promise<void> {
  const data: Record<string, string> = { 'client-ca-file': clientCaPem };
  if (rh) {
    data['requestheader-client-ca-file'] = rh.clientCaPem;
    data['requestheader-allowed-names'] = JSON.stringify(rh.allowedNames);
    data['requestheader-username-headers'] = JSON.stringify(rh.usernameHeaders);
    data['requestheader-group-headers'] = JSON.stringify(rh.groupHeaders);
    data['requestheader-extra-headers-prefix'] = JSON.stringify(rh.extraHeaderPrefixes);
    data['requestheader-uid-headers'] = JSON.stringify(rh.uidHeaders ?? []);
  }
  const name = 'extension-apiserver-authentication';
  await registry.lookup('', 'v1', 'configmaps')!.guaranteedUpdate(
    'kube-system',
    name,
    (current) => ({ ...(current ?? { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'kube-system' } }), data }),
    { dryRun: false, allowCreate: true },
  );
}
