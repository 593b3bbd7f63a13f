import type { ConfigMap, Container, EnvVar, Pod, Secret, ServiceAccountTokenProjection } from 'kubernetes-types/core/v1.js';
import { Quantity } from '../../machinery/quantity.js';

/** Reads of referenced objects; undefined means not found. */
export interface ObjectSource {
  configMap(namespace: string, name: string): ConfigMap | undefined;
  secret(namespace: string, name: string): Secret | undefined;
  /** The bound token for a projected service-account token source of the pod, once fetched. */
  serviceAccountToken?(pod: Pod, projection: ServiceAccountTokenProjection): string | undefined;
  /** The service environment of the pod (KUBERNETES_SERVICE_HOST, …), from the Services the kubelet watches. */
  serviceEnv?(pod: Pod): Record<string, string>;
  /** The node directory of each PersistentVolumeClaim volume (by volume name); throws VolumeNotReadyError while one is not usable. */
  claimPaths?(pod: Pod): Promise<Map<string, string>>;
  /** Resolves once what the pod refers to has been read at least once (or a deadline passed). */
  whenSynced?(pod: Pod): Promise<unknown>;
}

/** A container's config references something missing: waiting reason CreateContainerConfigError. */
export class ContainerConfigError extends Error {
  override readonly name = 'ContainerConfigError';
}

/**
 * Expands `$(VAR)` references as Kubernetes does: defined names are replaced,
 * `$$` escapes a `$`, and unknown references stay as written.
 */
export function expandVars(input: string, env: Readonly<Record<string, string>>): string {
  return input.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name: string | undefined) => {
    if (whole === '$$') return '$';
    return name !== undefined && Object.hasOwn(env, name) ? env[name] : whole;
  });
}

/** Value of a downward-API field path, or a ContainerConfigError. */
export function fieldPathValue(pod: Pod, path: string): string {
  const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (m) return (m[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations)?.[m[2]] ?? '';
  switch (path) {
    case 'metadata.name': return pod.metadata?.name ?? '';
    case 'metadata.namespace': return pod.metadata?.namespace ?? '';
    case 'metadata.uid': return pod.metadata?.uid ?? '';
    case 'metadata.labels': return formatMap(pod.metadata?.labels);
    case 'metadata.annotations': return formatMap(pod.metadata?.annotations);
    case 'spec.nodeName': return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP': return pod.status?.hostIP ?? '';
    case 'status.hostIPs': return (pod.status?.hostIPs ?? []).map((i) => i.ip).join(',');
    case 'status.podIP': return pod.status?.podIP ?? '';
    case 'status.podIPs': return (pod.status?.podIPs ?? []).map((i) => i.ip).join(',');
    default: throw new ContainerConfigError(`unsupported fieldPath: ${path}`);
  }
}

function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {}).sort().map((k) => `${k}="${m![k]}"`).join('\n');
}

/**
 * limits.cpu etc. for a container, divided by `divisor` and rounded up, as
 * the downward API does; a missing limit falls back to node allocatable.
 */
export function resourceFieldValue(container: Container | undefined, resource: string, divisor: string | number | undefined, allocatable: Record<string, string>): string {
  const [kind, name] = resource.split('.') as ['limits' | 'requests', string];
  const fromSpec = container?.resources?.[kind]?.[name];
  const raw = fromSpec ?? (kind === 'limits' ? allocatable[name] : undefined) ?? '0';
  const q = Quantity.parse(String(raw));
  const d = Quantity.parse(String(divisor ?? (name === 'cpu' ? '1' : '1')));
  if (name === 'cpu') return String(Math.ceil(q.milliValue() / d.milliValue()));
  return String(Math.ceil(q.value() / d.value()));
}

export interface EnvContext {
  pod: Pod;
  objects: ObjectSource;
  allocatable: Record<string, string>;
}

/**
 * The container's environment: envFrom first, then env in order (later
 * wins), with $(VAR) expansion; the service variables are under them all
 * (a container's own value wins) and visible to the expansion, as upstream.
 */
export function containerEnv(container: Container, ctx: EnvContext): Record<string, string> {
  const ns = ctx.pod.metadata?.namespace ?? 'default';
  const services = ctx.objects.serviceEnv?.(ctx.pod) ?? {};
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.configMapRef) {
      const cm = ctx.objects.configMap(ns, from.configMapRef.name ?? '');
      if (!cm) {
        if (from.configMapRef.optional) continue;
        throw new ContainerConfigError(`configmap "${from.configMapRef.name}" not found`);
      }
      for (const [k, v] of Object.entries(cm.data ?? {})) env[prefix + k] = v;
    }
    if (from.secretRef) {
      const s = ctx.objects.secret(ns, from.secretRef.name ?? '');
      if (!s) {
        if (from.secretRef.optional) continue;
        throw new ContainerConfigError(`secret "${from.secretRef.name}" not found`);
      }
      for (const [k, v] of Object.entries(s.data ?? {})) env[prefix + k] = Buffer.from(v, 'base64').toString();
    }
  }
  for (const e of container.env ?? []) {
    const v = envValue(e, container, ctx, ns, e.value !== undefined ? { ...services, ...env } : env);
    if (v !== undefined) env[e.name] = v;
  }
  return { ...services, ...env };
}

function envValue(e: EnvVar, container: Container, ctx: EnvContext, ns: string, env: Record<string, string>): string | undefined {
  if (e.value !== undefined) return expandVars(e.value, env);
  const from = e.valueFrom;
  if (!from) return '';
  if (from.fieldRef) return fieldPathValue(ctx.pod, from.fieldRef.fieldPath);
  if (from.resourceFieldRef) {
    const target = from.resourceFieldRef.containerName ? ctx.pod.spec?.containers.find((c) => c.name === from.resourceFieldRef!.containerName) : container;
    return resourceFieldValue(target, from.resourceFieldRef.resource, from.resourceFieldRef.divisor, ctx.allocatable);
  }
  if (from.configMapKeyRef) {
    const ref = from.configMapKeyRef;
    const v = ctx.objects.configMap(ns, ref.name ?? '')?.data?.[ref.key];
    if (v === undefined && !ref.optional) {
      throw new ContainerConfigError(ctx.objects.configMap(ns, ref.name ?? '') ? `couldn't find key ${ref.key} in ConfigMap ${ns}/${ref.name}` : `configmap "${ref.name}" not found`);
    }
    return v;
  }
  if (from.secretKeyRef) {
    const ref = from.secretKeyRef;
    const s = ctx.objects.secret(ns, ref.name ?? '');
    const v = s?.data?.[ref.key];
    if (v === undefined && !ref.optional) throw new ContainerConfigError(s ? `couldn't find key ${ref.key} in Secret ${ns}/${ref.name}` : `secret "${ref.name}" not found`);
    return v === undefined ? undefined : Buffer.from(v, 'base64').toString();
  }
  return '';
}

/** command + args with $(VAR) expansion; the process runtime has no image entrypoint to fall back on. */
export function containerArgv(container: Container, env: Readonly<Record<string, string>>): string[] {
  return [...(container.command ?? []), ...(container.args ?? [])].map((a) => expandVars(a, env));
}
