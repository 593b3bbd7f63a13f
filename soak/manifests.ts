import type { Json } from './writer.js';

export const NAMESPACE = 'soak';

/** A pod template whose containers only sleep (host processes on the process runtime), marked with the run id. */
export function podTemplate(runId: string, labels: Record<string, string>, opts: { ordinalEnv?: boolean; command?: string[]; rev?: number } = {}): Json {
  const env: Json[] = [{ name: 'SOAK_RUN', value: runId }];
  if (opts.ordinalEnv) {
    env.push({ name: 'SOAK_ORDINAL', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
    env.push({ name: 'SOAK_POD_UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } });
  }
  return {
    metadata: { labels, annotations: { 'soak.skiff.dev/rev': String(opts.rev ?? 0) } },
    spec: {
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 2,
      enableServiceLinks: false,
      containers: [{ name: 'main', image: 'busybox', command: opts.command ?? ['sleep', '3600'], env }],
    },
  };
}

export function deployment(runId: string, name: string, replicas: number): Json {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name, namespace: NAMESPACE },
    spec: { replicas, selector: { matchLabels: labels }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } }, template: podTemplate(runId, labels) },
  };
}

export function statefulSet(runId: string, name: string, replicas: number): Json {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: { name, namespace: NAMESPACE },
    spec: { replicas, serviceName: name, selector: { matchLabels: labels }, template: podTemplate(runId, labels, { ordinalEnv: true }) },
  };
}

export function job(runId: string, name: string): Json {
  const labels = { 'soak.skiff.dev/job': name };
  const template = podTemplate(runId, labels, { command: ['sleep', '1'] });
  (template.spec as Json).restartPolicy = 'Never';
  return {
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: { name, namespace: NAMESPACE },
    spec: { completions: 2, parallelism: 2, backoffLimit: 20, template },
  };
}

export function service(name: string, nodePort: boolean, app: string): Json {
  return {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name, namespace: NAMESPACE },
    spec: { type: nodePort ? 'NodePort' : 'ClusterIP', selector: { app }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] },
  };
}

export function configMap(name: string, seq: number): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { seq: String(seq), filler: 'x'.repeat(200) } };
}

/** What the soak wrote into each kind, for the ledger. */
export const signatures = {
  configMap: (o: Json) => `seq=${(o.data as { seq?: string } | undefined)?.seq ?? '?'}`,
  workload: (o: Json) => {
    const spec = o.spec as { replicas?: number; template?: { metadata?: { annotations?: Record<string, string> } } };
    return `replicas=${spec.replicas ?? '?'} rev=${spec.template?.metadata?.annotations?.['soak.skiff.dev/rev'] ?? '?'}`;
  },
  job: (o: Json) => `completions=${(o.spec as { completions?: number }).completions}`,
  service: (o: Json) => {
    const spec = o.spec as { clusterIP?: string; ports?: { nodePort?: number }[] };
    return `clusterIP=${spec.clusterIP ?? ''} nodePorts=${(spec.ports ?? []).map((p) => p.nodePort ?? 0).join(',')}`;
  },
};
