import type { Container, PersistentVolumeClaim, Pod, ResourceQuota, ScopedResourceSelectorRequirement, Service } from 'kubernetes-types/core/v1.js';
import { Quantity } from '../quantity.js';
import { podResources } from './pod-resources.js';
import { addUsage, toUsage, type Usage } from './resource-list.js';

/** The core resources quota also counts by their legacy names (`pods`, `secrets`, …). */
const LEGACY_COUNTS = new Set(['pods', 'services', 'configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas', 'persistentvolumeclaims']);

/** `count/pods`, `count/deployments.apps` */
export function countName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** The resource a `count/…` name counts, or undefined for other names. */
export function parseCountName(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** The legacy object-count name of a core resource (`pods`), if it has one. */
export function legacyCountName(group: string, resource: string): string | undefined {
  return group === '' && LEGACY_COUNTS.has(resource) ? resource : undefined;
}

const one = () => Quantity.fromValue(1);

function countUsage(group: string, resource: string): Usage {
  const usage: Usage = new Map([[countName(group, resource), one()]]);
  const legacy = legacyCountName(group, resource);
  if (legacy) usage.set(legacy, one());
  return usage;
}

/** Upstream's QuotaV1Pod: terminal pods, and pods past their deletion grace period, no longer count. */
export function podCounts(pod: Pod, now: Date): boolean {
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  const deletion = pod.metadata?.deletionTimestamp;
  if (deletion && pod.metadata?.deletionGracePeriodSeconds !== undefined) {
    const expiry = Date.parse(deletion) + pod.metadata.deletionGracePeriodSeconds * 1000;
    if (now.getTime() > expiry) return false;
  }
  return true;
}

const isNative = (name: string) => !name.includes('/') || name.startsWith('kubernetes.io/');

/** Compute names a pod's requests and limits are charged as (upstream's podComputeUsageHelper). */
export function computeUsage(requests: Usage, limits: Usage): Usage {
  const out: Usage = new Map();
  for (const [name, q] of requests) {
    if (name === 'cpu' || name === 'memory' || name === 'ephemeral-storage') {
      out.set(name, q);
      out.set(`requests.${name}`, q);
    } else if (name.startsWith('hugepages-') || !isNative(name)) out.set(`requests.${name}`, q);
  }
  for (const [name, q] of limits) {
    if (name === 'cpu' || name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-')) out.set(`limits.${name}`, q);
  }
  return out;
}

export function podUsage(pod: Pod, now: Date): Usage {
  if (!podCounts(pod, now)) return new Map();
  return addUsage(countUsage('', 'pods'), computeUsage(podResources(pod, 'requests'), podResources(pod, 'limits')));
}

export function serviceUsage(svc: Service): Usage {
  const usage = countUsage('', 'services');
  const ports = svc.spec?.ports?.length ?? 0;
  if (svc.spec?.type === 'NodePort') usage.set('services.nodeports', Quantity.fromValue(ports));
  if (svc.spec?.type === 'LoadBalancer') {
    const withNodePorts = svc.spec.allocateLoadBalancerNodePorts === false ? (svc.spec.ports ?? []).filter((p) => p.nodePort).length : ports;
    usage.set('services.nodeports', Quantity.fromValue(withNodePorts));
    usage.set('services.loadbalancers', one());
  }
  return usage;
}

export function claimUsage(pvc: PersistentVolumeClaim): Usage {
  const usage = countUsage('', 'persistentvolumeclaims');
  const storage = toUsage(pvc.spec?.resources?.requests as Record<string, string>).get('storage');
  const cls = pvc.spec?.storageClassName;
  if (cls) usage.set(`${cls}.storageclass.storage.k8s.io/persistentvolumeclaims`, one());
  if (storage) {
    usage.set('requests.storage', storage);
    if (cls) usage.set(`${cls}.storageclass.storage.k8s.io/requests.storage`, storage);
  }
  return usage;
}

/** What one object is charged against quota: counts for everything, compute and storage for pods, services and claims. */
export function usageOf(group: string, resource: string, obj: object, now: Date): Usage {
  if (group === '') {
    if (resource === 'pods') return podUsage(obj as Pod, now);
    if (resource === 'services') return serviceUsage(obj as Service);
    if (resource === 'persistentvolumeclaims') return claimUsage(obj as PersistentVolumeClaim);
  }
  return countUsage(group, resource);
}

/** The resource names an object of this kind can ever be charged for, among `names` (upstream's MatchingResources). */
export function matchingResources(group: string, resource: string, names: Iterable<string>): string[] {
  const count = countName(group, resource);
  const legacy = legacyCountName(group, resource);
  return [...names].filter((n) => {
    if (n === count || n === legacy) return true;
    if (group !== '') return false;
    if (resource === 'pods') return ['cpu', 'memory', 'ephemeral-storage'].includes(n) || n.startsWith('requests.') || n.startsWith('limits.');
    if (resource === 'services') return n === 'services.nodeports' || n === 'services.loadbalancers';
    if (resource === 'persistentvolumeclaims') return n === 'requests.storage' || n.includes('.storageclass.storage.k8s.io/');
    return false;
  });
}

function isBestEffort(pod: Pod): boolean {
  const all: Container[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const compute = (list: Record<string, unknown> | undefined) => Object.keys(list ?? {}).some((k) => k === 'cpu' || k === 'memory');
  return all.every((c) => !compute(c.resources?.requests) && !compute(c.resources?.limits));
}

function crossNamespaceAffinity(pod: Pod): boolean {
  const terms = [
    ...(pod.spec?.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    ...(pod.spec?.affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => w.podAffinityTerm),
    ...(pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    ...(pod.spec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => w.podAffinityTerm),
  ];
  return terms.some((t) => (t.namespaces?.length ?? 0) > 0 || t.namespaceSelector !== undefined);
}

function podMatchesScope(pod: Pod, req: ScopedResourceSelectorRequirement): boolean {
  const scope = req.scopeName;
  switch (scope) {
    case 'Terminating':
      return pod.spec?.activeDeadlineSeconds !== undefined && pod.spec.activeDeadlineSeconds >= 0;
    case 'NotTerminating':
      return pod.spec?.activeDeadlineSeconds === undefined || pod.spec.activeDeadlineSeconds < 0;
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'CrossNamespacePodAffinity':
      return crossNamespaceAffinity(pod);
    case 'PriorityClass': {
      const name = pod.spec?.priorityClassName ?? '';
      switch (req.operator) {
        case 'Exists':
          return name !== '';
        case 'DoesNotExist':
          return name === '';
        case 'In':
          return (req.values ?? []).includes(name);
        case 'NotIn':
          return !(req.values ?? []).includes(name);
        default:
          return false;
      }
    }
    default:
      return false;
  }
}

/** Whether the quota covers the object: every scope (and scope selector term) must match; scoped quotas cover only pods. */
export function quotaMatches(quota: ResourceQuota, group: string, resource: string, obj: object): boolean {
  const reqs: ScopedResourceSelectorRequirement[] = [
    ...(quota.spec?.scopes ?? []).map((scopeName) => ({ scopeName, operator: 'Exists' })),
    ...(quota.spec?.scopeSelector?.matchExpressions ?? []),
  ];
  if (reqs.length === 0) return true;
  if (group !== '' || resource !== 'pods') return false;
  return reqs.every((r) => podMatchesScope(obj as Pod, r));
}

/** The compute resources a quota makes every container state (upstream's validationSet). */
const REQUIRED_COMPUTE = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/**
 * Upstream's pod evaluator Constraints: a quota on cpu or memory requires
 * each container to request (or limit) it. Undefined when satisfied, else
 * `must specify limits.cpu for: a,b; requests.memory for: a`.
 */
export function podConstraints(pod: Pod, hardNames: Iterable<string>): string | undefined {
  const required = new Set([...hardNames].filter((n) => REQUIRED_COMPUTE.includes(n)));
  if (required.size === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const has = computeUsage(toUsage(c.resources?.requests as Record<string, string>), toUsage(c.resources?.limits as Record<string, string>));
    for (const r of required) if (!has.has(r)) missing.set(r, (missing.get(r) ?? new Set()).add(c.name));
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}
