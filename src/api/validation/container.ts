import type { Container, ContainerPort, EnvVar, ResourceRequirements, Volume, VolumeMount } from 'kubernetes-types/core/v1.js';
import { child, duplicate, forbidden, index, invalid, key, notFound, notSupported, required, type ErrorList } from './errors.js';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isRelaxedEnvVarName, isValidPortName, isValidPortNum } from './name.js';
import { validateQualifiedName } from './object-meta.js';
import { validateHandler, validateProbe, validateSingleSuccessProbe } from './probe.js';
import { parseQuantity, validateNonnegativeQuantity } from './quantity.js';
import { validateSecurityContext } from './security-context.js';

export const SUPPORTED_PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

export function validateDNS1123Label(value: string, path: string): ErrorList {
  return isDNS1123Label(value).map((m) => invalid(path, value, m));
}

export function validateDNS1123Subdomain(value: string, path: string): ErrorList {
  return isDNS1123Subdomain(value).map((m) => invalid(path, value, m));
}

function validateContainerPorts(ports: ContainerPort[] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  const names = new Set<string>();
  (ports ?? []).forEach((port, i) => {
    const p = index(path, i);
    if (port.name) {
      for (const m of isValidPortName(port.name)) errs.push(invalid(child(p, 'name'), port.name, m));
      if (names.has(port.name)) errs.push(duplicate(child(p, 'name'), port.name));
      names.add(port.name);
    }
    if (!port.containerPort) errs.push(required(child(p, 'containerPort')));
    else for (const m of isValidPortNum(port.containerPort)) errs.push(invalid(child(p, 'containerPort'), port.containerPort, m));
    if (port.hostPort) for (const m of isValidPortNum(port.hostPort)) errs.push(invalid(child(p, 'hostPort'), port.hostPort, m));
    if (!port.protocol) errs.push(required(child(p, 'protocol')));
    else if (!SUPPORTED_PORT_PROTOCOLS.includes(port.protocol)) errs.push(notSupported(child(p, 'protocol'), port.protocol, SUPPORTED_PORT_PROTOCOLS));
  });
  return errs;
}

const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];

function validateKeySelector(sel: { name?: string; key: string }, path: string): ErrorList {
  const errs: ErrorList = [];
  if (sel.name) for (const m of isDNS1123Subdomain(sel.name)) errs.push(invalid(child(path, 'name'), sel.name, m));
  if (!sel.key) errs.push(required(child(path, 'key')));
  else for (const m of isConfigMapKey(sel.key)) errs.push(invalid(child(path, 'key'), sel.key, m));
  return errs;
}

function validateEnvVarValueFrom(ev: EnvVar, path: string): ErrorList {
  const from = ev.valueFrom;
  if (!from) return [];
  const errs: ErrorList = [];
  let sources = 0;
  if (from.fieldRef) {
    sources++;
    const p = child(path, 'fieldRef');
    const fp = from.fieldRef.fieldPath;
    if (!from.fieldRef.apiVersion) errs.push(required(child(p, 'apiVersion')));
    else if (!fp) errs.push(required(child(p, 'fieldPath')));
    else {
      const sub = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fp);
      if (sub) errs.push(...validateQualifiedName(sub[1] === 'metadata.annotations' ? sub[2].toLowerCase() : sub[2], p));
      else if (!ENV_FIELD_PATHS.includes(fp)) errs.push(notSupported(child(p, 'fieldPath'), fp, ENV_FIELD_PATHS));
    }
  }
  if (from.resourceFieldRef) {
    sources++;
    if (!from.resourceFieldRef.resource) errs.push(required(child(path, 'resourceFieldRef', 'resource')));
  }
  if (from.configMapKeyRef) {
    sources++;
    errs.push(...validateKeySelector(from.configMapKeyRef, child(path, 'configMapKeyRef')));
  }
  if (from.secretKeyRef) {
    sources++;
    errs.push(...validateKeySelector(from.secretKeyRef, child(path, 'secretKeyRef')));
  }
  if (sources === 0) {
    errs.push(invalid(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  } else if (ev.value) {
    errs.push(invalid(path, '', 'may not be specified when `value` is not empty'));
  } else if (sources > 1) {
    errs.push(invalid(path, '', 'may not have more than one field specified at a time'));
  }
  return errs;
}

export function validateEnv(env: EnvVar[] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  (env ?? []).forEach((ev, i) => {
    const p = index(path, i);
    if (!ev.name) errs.push(required(child(p, 'name')));
    else for (const m of isRelaxedEnvVarName(ev.name)) errs.push(invalid(child(p, 'name'), ev.name, m));
    errs.push(...validateEnvVarValueFrom(ev, child(p, 'valueFrom')));
  });
  return errs;
}

/** Upstream's validateLocalDescendingPath. */
export function validateLocalDescendingPath(target: string, path: string): ErrorList {
  const errs: ErrorList = [];
  if (target.startsWith('/')) errs.push(invalid(path, target, 'must be a relative path'));
  if (target.split(/[\\/]/).includes('..')) errs.push(invalid(path, target, "must not contain '..'"));
  return errs;
}

function validateVolumeMounts(mounts: VolumeMount[] | undefined, volumes: Volume[], path: string): ErrorList {
  const errs: ErrorList = [];
  const mountPoints = new Set<string>();
  const names = new Set(volumes.map((v) => v.name));
  (mounts ?? []).forEach((m, i) => {
    const p = index(path, i);
    if (!m.name) errs.push(required(child(p, 'name')));
    if (!names.has(m.name)) errs.push(notFound(child(p, 'name'), m.name));
    if (!m.mountPath) errs.push(required(child(p, 'mountPath')));
    if (mountPoints.has(m.mountPath)) errs.push(invalid(child(p, 'mountPath'), m.mountPath, 'must be unique'));
    mountPoints.add(m.mountPath);
    if (m.subPath) errs.push(...validateLocalDescendingPath(m.subPath, child(path, 'subPath')));
    if (m.subPathExpr) {
      if (m.subPath) errs.push(invalid(child(p, 'subPathExpr'), m.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(m.subPathExpr, child(path, 'subPathExpr')));
    }
  });
  return errs;
}

const STANDARD_CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];

function validateContainerResourceName(name: string, path: string): ErrorList {
  const errs = isQualifiedName(name).map((m) => invalid(path, name, m));
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.includes(name) && !name.startsWith('hugepages-')) {
      errs.push(invalid(path, name, 'must be a standard resource type or fully qualified'));
    }
  } else if (!name.includes('kubernetes.io/')) {
    const extended = !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
    if (!extended) errs.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

export function validateResourceRequirements(res: ResourceRequirements | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  const limits = res?.limits ?? {};
  const requests = res?.requests ?? {};
  for (const [name, q] of Object.entries(limits)) {
    const p = key(child(path, 'limits'), name);
    errs.push(...validateContainerResourceName(name, p), ...validateNonnegativeQuantity(q, p));
  }
  for (const [name, q] of Object.entries(requests)) {
    const p = key(child(path, 'requests'), name);
    errs.push(...validateContainerResourceName(name, p), ...validateNonnegativeQuantity(q, p));
    const req = parseQuantity(q);
    const lim = parseQuantity(limits[name]);
    if (req !== undefined && lim !== undefined && req > lim) {
      errs.push(invalid(p, q, `must be less than or equal to ${name} limit of ${String(limits[name])}`));
    }
  }
  return errs;
}

export type ContainerKind = 'container' | 'init' | 'ephemeral';

/** Checks shared by every container kind; `names` collects names across the pod for duplicate detection. */
export function validateContainer(ctr: Container, kind: ContainerKind, volumes: Volume[], names: Set<string>, path: string): ErrorList {
  const errs: ErrorList = [];
  const namePath = child(path, 'name');
  if (!ctr.name) errs.push(required(namePath));
  else errs.push(...validateDNS1123Label(ctr.name, namePath));
  if (ctr.name && names.has(ctr.name)) errs.push(duplicate(namePath, ctr.name));
  names.add(ctr.name);
  if (!ctr.image) errs.push(required(child(path, 'image')));
  else if (ctr.image.trim() !== ctr.image) errs.push(invalid(child(path, 'image'), ctr.image, 'must not have leading or trailing whitespace'));
  if (ctr.imagePullPolicy === undefined || ctr.imagePullPolicy === '') errs.push(required(child(path, 'imagePullPolicy')));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(ctr.imagePullPolicy)) {
    errs.push(notSupported(child(path, 'imagePullPolicy'), ctr.imagePullPolicy, ['Always', 'IfNotPresent', 'Never']));
  }
  if (!ctr.terminationMessagePolicy) errs.push(required(child(path, 'terminationMessagePolicy')));
  else if (!['FallbackToLogsOnError', 'File'].includes(ctr.terminationMessagePolicy)) {
    errs.push(notSupported(child(path, 'terminationMessagePolicy'), ctr.terminationMessagePolicy, ['FallbackToLogsOnError', 'File']));
  }
  errs.push(...validateContainerPorts(ctr.ports, child(path, 'ports')));
  errs.push(...validateEnv(ctr.env, child(path, 'env')));
  (ctr.envFrom ?? []).forEach((ef, i) => {
    if (ef.prefix) for (const m of isRelaxedEnvVarName(ef.prefix)) errs.push(invalid(child(index(child(path, 'envFrom'), i), 'prefix'), ef.prefix, m));
  });
  errs.push(...validateVolumeMounts(ctr.volumeMounts, volumes, child(path, 'volumeMounts')));
  errs.push(...validateResourceRequirements(ctr.resources, child(path, 'resources')));
  errs.push(...validateSecurityContext(ctr.securityContext, child(path, 'securityContext')));

  const sidecar = kind === 'init' && ctr.restartPolicy === 'Always';
  if (kind === 'container' || sidecar) {
    errs.push(...validateSingleSuccessProbe(ctr.livenessProbe, child(path, 'livenessProbe')));
    errs.push(...validateProbe(ctr.readinessProbe, child(path, 'readinessProbe')));
    errs.push(...validateSingleSuccessProbe(ctr.startupProbe, child(path, 'startupProbe')));
    if (ctr.lifecycle?.postStart) errs.push(...validateHandler(ctr.lifecycle.postStart, child(path, 'lifecycle', 'postStart')));
    if (ctr.lifecycle?.preStop) errs.push(...validateHandler(ctr.lifecycle.preStop, child(path, 'lifecycle', 'preStop')));
  } else if (kind === 'init') {
    for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
      if (ctr[f]) errs.push(forbidden(child(path, f), 'may not be set for init containers without restartPolicy=Always'));
    }
  } else {
    errs.push(...validateEphemeralOnlyFields(ctr, path));
  }
  if (kind === 'container' && ctr.restartPolicy !== undefined) errs.push(forbidden(child(path, 'restartPolicy'), 'may not be set for non-init containers'));
  if (kind === 'init' && ctr.restartPolicy !== undefined && ctr.restartPolicy !== 'Always') {
    errs.push(notSupported(child(path, 'restartPolicy'), ctr.restartPolicy, ['Always']));
  }
  return errs;
}

/**
 * Fields an ephemeral container may not set (upstream's allow list, checked
 * as Go checks a non-zero value): debugging containers must not become part
 * of the pod's serving, so no ports, probes, lifecycle, resources or restarts;
 * subPath mounts would leak bind mounts until the pod ends.
 */
const EPHEMERAL_FORBIDDEN_FIELDS = ['ports', 'resources', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'resizePolicy', 'restartPolicy'] as const;

function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v).every(isZero);
  return false;
}

function validateEphemeralOnlyFields(ctr: Container, path: string): ErrorList {
  const errs: ErrorList = [];
  for (const f of EPHEMERAL_FORBIDDEN_FIELDS) {
    if (!isZero((ctr as unknown as Record<string, unknown>)[f])) errs.push(forbidden(child(path, f), 'cannot be set for an Ephemeral Container'));
  }
  (ctr.volumeMounts ?? []).forEach((m, i) => {
    for (const f of ['subPath', 'subPathExpr'] as const) {
      if (m[f]) errs.push(forbidden(child(index(child(path, 'volumeMounts'), i), f), 'cannot be set for an Ephemeral Container'));
    }
  });
  return errs;
}

/** Upstream's checkHostPortConflicts over one container list. */
export function validateHostPortConflicts(containers: Container[], path: string): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) =>
    (c.ports ?? []).forEach((port, pi) => {
      if (!port.hostPort) return;
      const id = `${port.protocol ?? ''}/${port.hostIP ?? ''}/${port.hostPort}`;
      if (seen.has(id)) errs.push(duplicate(child(index(child(index(path, ci), 'ports'), pi), 'hostPort'), id));
      seen.add(id);
    }),
  );
  return errs;
}

