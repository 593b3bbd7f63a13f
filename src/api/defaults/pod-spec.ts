import type {
  Container,
  EnvVar,
  HTTPGetAction,
  Lifecycle,
  Pod,
  PodSpec,
  PodTemplateSpec,
  Probe,
  Volume,
  VolumeProjection,
} from 'kubernetes-types/core/v1.js';

/** Mode 0644, upstream's default for secret, configMap, downwardAPI and projected volumes. */
export const DEFAULT_FILE_MODE = 0o644;

/** The tag of an image reference, "latest" when neither tag nor digest is given (as upstream's ParseImageName). */
export function imageTag(image: string): string {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  const tag = colon >= 0 ? lastSegment.slice(colon + 1) : '';
  return tag === '' && at < 0 ? 'latest' : tag;
}

function setHTTPGetDefaults(h: HTTPGetAction | undefined): void {
  if (!h) return;
  h.path ||= '/';
  h.scheme ||= 'HTTP';
}

function setProbeDefaults(p: Probe | undefined): void {
  if (!p) return;
  p.timeoutSeconds ||= 1;
  p.periodSeconds ||= 10;
  p.successThreshold ||= 1;
  p.failureThreshold ||= 3;
  setHTTPGetDefaults(p.httpGet);
  if (p.grpc && p.grpc.service === undefined) p.grpc.service = '';
}

function setLifecycleDefaults(l: Lifecycle | undefined): void {
  setHTTPGetDefaults(l?.postStart?.httpGet);
  setHTTPGetDefaults(l?.preStop?.httpGet);
}

function setEnvDefaults(env: EnvVar[] | undefined): void {
  for (const ev of env ?? []) {
    const ref = ev.valueFrom?.fieldRef;
    if (ref && !ref.apiVersion) ref.apiVersion = 'v1';
  }
}

export function setContainerDefaults(c: Container): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(c.image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
  for (const port of c.ports ?? []) port.protocol ||= 'TCP';
  setEnvDefaults(c.env);
  setProbeDefaults(c.livenessProbe);
  setProbeDefaults(c.readinessProbe);
  setProbeDefaults(c.startupProbe);
  setLifecycleDefaults(c.lifecycle);
}

function setProjectionDefaults(p: VolumeProjection): void {
  for (const item of p.downwardAPI?.items ?? []) {
    if (item.fieldRef && !item.fieldRef.apiVersion) item.fieldRef.apiVersion = 'v1';
  }
  if (p.serviceAccountToken && p.serviceAccountToken.expirationSeconds === undefined) p.serviceAccountToken.expirationSeconds = 3600;
}

const VOLUME_SOURCE_KEYS_EXCLUDED = new Set(['name']);

export function setVolumeDefaults(v: Volume): void {
  const record = v as unknown as Record<string, unknown>;
  // A volume with no source at all becomes an emptyDir, as upstream's SetDefaults_Volume.
  if (!Object.keys(record).some((k) => !VOLUME_SOURCE_KEYS_EXCLUDED.has(k) && record[k] != null)) v.emptyDir = {};
  if (v.secret && v.secret.defaultMode === undefined) v.secret.defaultMode = DEFAULT_FILE_MODE;
  if (v.configMap && v.configMap.defaultMode === undefined) v.configMap.defaultMode = DEFAULT_FILE_MODE;
  if (v.downwardAPI) {
    if (v.downwardAPI.defaultMode === undefined) v.downwardAPI.defaultMode = DEFAULT_FILE_MODE;
    for (const item of v.downwardAPI.items ?? []) if (item.fieldRef && !item.fieldRef.apiVersion) item.fieldRef.apiVersion = 'v1';
  }
  if (v.projected) {
    if (v.projected.defaultMode === undefined) v.projected.defaultMode = DEFAULT_FILE_MODE;
    for (const src of v.projected.sources ?? []) setProjectionDefaults(src);
  }
  if (v.hostPath && v.hostPath.type === undefined) v.hostPath.type = '';
  if (v.iscsi && !v.iscsi.iscsiInterface) v.iscsi.iscsiInterface = 'default';
  if (v.ephemeral?.volumeClaimTemplate?.spec) {
    const spec = v.ephemeral.volumeClaimTemplate.spec;
    spec.volumeMode ||= 'Filesystem';
  }
}

/** Hosts-network pods expose container ports on the host: hostPort defaults to containerPort. */
function setHostNetworkPorts(containers: Container[] | undefined): void {
  for (const c of containers ?? []) for (const p of c.ports ?? []) if (!p.hostPort) p.hostPort = p.containerPort;
}

/** SetDefaults_PodSpec and the generated defaults below it; used for pods and every template. */
export function setPodSpecDefaults(spec: PodSpec | undefined): void {
  if (!spec) return;
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  if (spec.hostNetwork) {
    setHostNetworkPorts(spec.containers);
    setHostNetworkPorts(spec.initContainers);
  }
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ||= 'default-scheduler';
  for (const c of spec.containers ?? []) setContainerDefaults(c);
  for (const c of spec.initContainers ?? []) setContainerDefaults(c);
  for (const c of spec.ephemeralContainers ?? []) setContainerDefaults(c as Container);
  for (const v of spec.volumes ?? []) setVolumeDefaults(v);
}

export function setPodTemplateDefaults(template: PodTemplateSpec | undefined): void {
  setPodSpecDefaults(template?.spec);
}

/** Requests default to limits; upstream does this for Pods only, never for templates. */
function setRequestsFromLimits(containers: Container[] | undefined): void {
  for (const c of containers ?? []) {
    const limits = c.resources?.limits;
    if (!limits || !c.resources) continue;
    c.resources.requests ??= {};
    for (const [k, v] of Object.entries(limits)) if (!(k in c.resources.requests)) c.resources.requests[k] = v;
  }
}

export function setPodDefaults(pod: Pod): void {
  if (!pod.spec) return;
  setPodSpecDefaults(pod.spec);
  setRequestsFromLimits(pod.spec.containers);
  setRequestsFromLimits(pod.spec.initContainers);
  pod.spec.enableServiceLinks ??= true;
}
