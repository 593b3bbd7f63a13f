import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap, Namespace, Service } from 'kubernetes-types/core/v1.js';

/**
 * The objects of the scale bench, after clusterloader2's load test
 * (perf-tests/clusterloader2/testing/load/config.yaml): Deployments of
 * 250, 30 and 5 replicas holding a quarter, a quarter and a half of the pods,
 * a ConfigMap per Deployment (mounted by its pods), a Service for every
 * second Deployment; spread round robin over the namespaces.
 */
export const BIG = 250;
export const MEDIUM = 30;
export const SMALL = 5;

export interface PlannedDeployment {
  namespace: string;
  name: string;
  replicas: number;
  /** Every second Deployment has a Service selecting its pods. */
  service: boolean;
}

export interface Workload {
  namespaces: string[];
  deployments: PlannedDeployment[];
  pods: number;
}

export function planWorkload(pods: number, namespaceCount: number): Workload {
  const namespaces = Array.from({ length: namespaceCount }, (_, i) => `scale-${i}`);
  const sizes: number[] = [];
  const big = Math.floor(pods / 4 / BIG);
  const medium = Math.floor(pods / 4 / MEDIUM);
  for (let i = 0; i < big; i++) sizes.push(BIG);
  for (let i = 0; i < medium; i++) sizes.push(MEDIUM);
  let left = pods - big * BIG - medium * MEDIUM;
  while (left >= SMALL) {
    sizes.push(SMALL);
    left -= SMALL;
  }
  if (left > 0) sizes.push(left);
  // interleave sizes so that every phase of the run creates a mix, as the load test's parallel phases do
  const order = [...sizes.keys()].sort((a, b) => (a * 7919) % sizes.length - (b * 7919) % sizes.length);
  const deployments = order.map((k, i): PlannedDeployment => ({
    namespace: namespaces[i % namespaces.length],
    name: `deploy-${i}`,
    replicas: sizes[k],
    service: i % 2 === 0,
  }));
  return { namespaces, deployments, pods };
}

export function namespace(name: string): Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

export function configMap(d: PlannedDeployment): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: d.name, namespace: d.namespace }, data: { 'config.yaml': `name: ${d.name}\nreplicas: ${d.replicas}\n` } };
}

export function service(d: PlannedDeployment): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: d.name, namespace: d.namespace },
    spec: { selector: { app: d.name }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
  };
}

export function deployment(d: PlannedDeployment): Deployment {
  const labels = { app: d.name, group: 'scale' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: d.name, namespace: d.namespace, labels },
    spec: {
      replicas: d.replicas,
      selector: { matchLabels: { app: d.name } },
      template: {
        metadata: { labels },
        spec: {
          containers: [{
            name: 'app',
            image: 'registry.k8s.io/pause:3.10',
            ports: [{ containerPort: 8080 }],
            resources: { requests: { cpu: '10m', memory: '10M' } },
            volumeMounts: [{ name: 'config', mountPath: '/etc/config' }],
          }],
          volumes: [{ name: 'config', configMap: { name: d.name } }],
          terminationGracePeriodSeconds: 1,
        },
      },
    },
  };
}

/**
 * clusterloader2's pod-startup-latency module (testing/load/modules/
 * pod-startup-latency.yaml): after the cluster reached its size, max(500,
 * nodes) one-replica Deployments labelled group=latency, requesting 100m cpu
 * and 350M memory each (sized so the scheduler's scores spread them over the
 * nodes), created at 5 per second round robin over the namespaces; the 5 s
 * pod startup SLO is checked on these pods only.
 */
export const MIN_LATENCY_PODS = 500;
export const LATENCY_CREATES_PER_SECOND = 5;

export function latencyDeployment(namespace: string, i: number): Deployment {
  const labels = { app: `latency-${i}`, group: 'latency' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `latency-deployment-${i}`, namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: labels.app } },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '350M' } } }],
          terminationGracePeriodSeconds: 1,
        },
      },
    },
  };
}
