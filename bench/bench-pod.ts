/** A realistic pod: ~1.5 KB of JSON, like a small Deployment's pods. */
export function benchPod(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'bench', labels: { app: 'bench', 'pod-template-hash': '5d8f7c9b6', tier: 'backend' } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.example.com/team/app:1.2.3',
          ports: [{ containerPort: 8080, name: 'http' }],
          env: [{ name: 'MODE', value: 'production' }, { name: 'LOG_LEVEL', value: 'info' }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
        },
      ],
    },
  };
}

/**
 * Makes a namespace for benchmark pods as a running cluster has it: with its
 * `default` ServiceAccount (the controller manager's job; a lone API server
 * has none, and the ServiceAccount admission plugin would wait for it, as
 * upstream's does, for about a second and a half on every pod create).
 */
export async function benchNamespace(client: { request(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> }, name: string): Promise<void> {
  const ns = await client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (ns.status !== 201) throw new Error(`create namespace ${name}: ${ns.status} ${ns.body}`);
  const sa = await client.request('POST', `/api/v1/namespaces/${name}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: name } });
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`create serviceaccount ${name}/default: ${sa.status} ${sa.body}`);
}
