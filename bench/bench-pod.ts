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
