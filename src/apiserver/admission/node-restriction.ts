import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type { Node, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { asKind, type KubeObject } from '../../api/object.js';
import { podReferences } from '../../api/pod-references.js';
import { ApiError } from '../../machinery/api-error.js';
import { nodeIdentity } from '../authorization/node/node-authorizer.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes, Operation, ValidatingAdmission } from './admission.js';
import { admissionForbidden } from './forbidden.js';

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** The labels a kubelet may set on its own Node (upstream's kubeletapis.IsKubeletLabel). */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type', 'node.kubernetes.io/instance-type',
  'kubernetes.io/os', 'kubernetes.io/arch', 'beta.kubernetes.io/os', 'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const inDomain = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);
const labelNamespace = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');

function isKubeletLabel(key: string): boolean {
  return KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((d) => inDomain(labelNamespace(key), d));
}

/** Labels added, removed or changed, that a node may not touch. */
export function forbiddenNodeLabels(next: Record<string, string> | undefined, prev: Record<string, string> | undefined): string[] {
  const a = next ?? {};
  const b = prev ?? {};
  const modified = new Set([...Object.keys(a).filter((k) => a[k] !== b[k]), ...Object.keys(b).filter((k) => a[k] !== b[k])]);
  return [...modified].filter((k) => {
    const ns = labelNamespace(k);
    if (inDomain(ns, 'node-restriction.kubernetes.io')) return true;
    return (inDomain(ns, 'kubernetes.io') || inDomain(ns, 'k8s.io')) && !isKubeletLabel(k);
  }).sort();
}

/**
 * Upstream's NodeRestriction: a node (system:node:<name>) may modify only
 * its own Node (no taints, no restricted labels), its own Lease, the status
 * of pods bound to it, mirror pods of itself that reference nothing, and may
 * request tokens only bound to its own pods.
 */
export class NodeRestriction implements ValidatingAdmission {
  readonly name = 'NodeRestriction';

  constructor(private readonly stores: { pods: () => RegistryStore; nodes: () => RegistryStore }) {}

  handles(operation: Operation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE' || operation === 'DELETE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const node = nodeIdentity(attrs.user);
    if (!node) return;
    const { group, resource } = attrs.resource;
    const forbid = (why: string) => admissionForbidden(attrs, why);
    switch (`${group}/${resource}`) {
      case '/pods':
        if (attrs.subresource === '') return this.pod(node, attrs);
        if (attrs.subresource === 'status') {
          if (attrs.operation !== 'UPDATE') throw forbid(`unexpected operation "${attrs.operation}"`);
          const old = asKind<Pod>(attrs.oldObject!);
          if (old.spec?.nodeName !== node) throw forbid(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
          if (!sameMap(old.metadata?.labels, attrs.object?.metadata?.labels)) throw forbid(`node "${node}" cannot update labels through pod status`);
          return;
        }
        if (attrs.subresource === 'eviction') {
          const found = attrs.oldObject ?? (await this.find(this.stores.pods(), attrs.namespace, attrs.name));
          if (!found) return;
          if (asKind<Pod>(found).spec?.nodeName !== node) throw forbid(`node ${node} can only evict pods with spec.nodeName set to itself`);
          return;
        }
        throw forbid(`unexpected pod subresource "${attrs.subresource}", only 'status' and 'eviction' are allowed`);
      case '/nodes':
        return this.node(node, attrs);
      case '/persistentvolumeclaims':
        if (attrs.subresource !== 'status') throw forbid('may only update PVC status');
        if (attrs.operation !== 'UPDATE') throw forbid(`unexpected operation "${attrs.operation}"`);
        if (!pvcSameButStatus(asKind<PersistentVolumeClaim>(attrs.oldObject!), asKind<PersistentVolumeClaim>(attrs.object!))) {
          throw forbid(`node "${node}" is not allowed to update fields other than status.capacity and status.conditions`);
        }
        return;
      case '/serviceaccounts':
        if (attrs.operation === 'CREATE' && attrs.subresource === 'token') return this.token(node, attrs);
        return;
      case 'coordination.k8s.io/leases':
        if (attrs.namespace !== NODE_LEASE_NAMESPACE) throw forbid(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
        if ((attrs.operation === 'CREATE' ? attrs.object?.metadata?.name : attrs.name) !== node) throw forbid('can only access node lease with the same name as the requesting node');
        return;
      case 'storage.k8s.io/csinodes':
        if ((attrs.operation === 'CREATE' ? attrs.object?.metadata?.name : attrs.name) !== node) throw forbid('can only access CSINode with the same name as the requesting node');
        return;
    }
  }

  private async pod(node: string, attrs: AdmissionAttributes): Promise<void> {
    const forbid = (why: string) => admissionForbidden(attrs, why);
    if (attrs.operation === 'DELETE') {
      if (asKind<Pod>(attrs.oldObject!).spec?.nodeName !== node) throw forbid(`node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    if (attrs.operation !== 'CREATE') throw forbid(`unexpected operation "${attrs.operation}", node "${node}" can only create and delete mirror pods`);
    const pod = asKind<Pod>(attrs.object!);
    if (!Object.hasOwn(pod.metadata?.annotations ?? {}, MIRROR_ANNOTATION)) throw forbid(`pod does not have "${MIRROR_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
    if (pod.spec?.nodeName !== node) throw forbid(`node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata?.ownerReferences ?? [];
    if (owners.length > 1) throw forbid(`node "${node}" can only create pods with a single owner reference set to itself`);
    const owner = owners[0];
    if (!owner || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) throw forbid(`node "${node}" can only create pods with an owner reference set to itself`);
    if (!owner.controller) throw forbid(`node "${node}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion) throw forbid(`node "${node}" must not set blockOwnerDeletion on an owner reference`);
    const self = await this.find(this.stores.nodes(), '', node);
    if (!self) throw new ApiError(404, 'NotFound', `nodes "${node}" not found`, { name: node, kind: 'nodes' });
    if (owner.uid !== self.metadata?.uid) throw forbid(`node ${node} UID mismatch: expected ${owner.uid} got ${self.metadata?.uid}`);
    // a node may not create pods that would let it read other objects
    const refs = podReferences(pod);
    if (pod.spec?.serviceAccountName) throw forbid(`node "${node}" can not create pods that reference a service account`);
    if (refs.secrets.size) throw forbid(`node "${node}" can not create pods that reference secrets`);
    if (refs.configMaps.size) throw forbid(`node "${node}" can not create pods that reference configmaps`);
    if ((pod.spec?.volumes ?? []).some((v) => v.projected?.sources?.some((s) => (s as { clusterTrustBundle?: unknown }).clusterTrustBundle))) {
      throw forbid(`node "${node}" can not create pods that reference clustertrustbundles`);
    }
    if ((pod.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim)) throw forbid(`node "${node}" can not create pods that reference persistentvolumeclaims`);
  }

  private node(node: string, attrs: AdmissionAttributes): void {
    const forbid = (why: string) => admissionForbidden(attrs, why);
    const requested = attrs.operation === 'CREATE' ? (attrs.name || attrs.object?.metadata?.name || '') : attrs.name;
    if (requested !== node) throw forbid(`node "${node}" is not allowed to modify node "${requested}"`);
    if (attrs.operation === 'CREATE') {
      const obj = asKind<Node>(attrs.object!);
      if (obj.spec?.configSource) throw forbid(`node "${node}" is not allowed to create pods with a non-nil configSource`);
      const labels = forbiddenNodeLabels(obj.metadata?.labels, undefined);
      if (labels.length) throw forbid(`node "${node}" is not allowed to set the following labels: ${labels.join(', ')}`);
    } else if (attrs.operation === 'UPDATE') {
      const obj = asKind<Node>(attrs.object!);
      const old = asKind<Node>(attrs.oldObject!);
      if (obj.spec?.configSource && JSON.stringify(obj.spec.configSource) !== JSON.stringify(old.spec?.configSource)) {
        throw forbid(`node "${node}" is not allowed to update configSource to a new non-nil configSource`);
      }
      if (JSON.stringify(obj.spec?.taints ?? []) !== JSON.stringify(old.spec?.taints ?? [])) throw forbid(`node "${node}" is not allowed to modify taints`);
      const labels = forbiddenNodeLabels(obj.metadata?.labels, old.metadata?.labels);
      if (labels.length) throw forbid(`is not allowed to modify labels: ${labels.join(', ')}`);
    }
  }

  private async token(node: string, attrs: AdmissionAttributes): Promise<void> {
    const forbid = (why: string) => admissionForbidden(attrs, why);
    const ref = (attrs.object as unknown as TokenRequest | undefined)?.spec?.boundObjectRef;
    if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw forbid('node requested token not bound to a pod');
    if (!ref.uid) throw forbid('node requested token with a pod binding without a uid');
    const pod = await this.find(this.stores.pods(), attrs.namespace, ref.name);
    if (!pod) throw new ApiError(404, 'NotFound', `pods "${ref.name}" not found`, { name: ref.name, kind: 'pods' });
    if (ref.uid !== pod.metadata?.uid) {
      throw forbid(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (asKind<Pod>(pod).spec?.nodeName !== node) throw forbid('node requested token bound to a pod scheduled on a different node');
  }

  private async find(store: RegistryStore, namespace: string, name: string): Promise<KubeObject | undefined> {
    try {
      return await store.get(namespace, name);
    } catch (err) {
      if (ApiError.is(err, 'NotFound')) return undefined;
      throw err;
    }
  }
}

function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  return Object.keys(x).length === Object.keys(y).length && Object.keys(x).every((k) => x[k] === y[k]);
}

/** A node may change a claim's status.capacity and status.conditions, nothing else (upstream's admitPVCStatus). */
function pvcSameButStatus(old: PersistentVolumeClaim, next: PersistentVolumeClaim): boolean {
  const strip = (c: PersistentVolumeClaim) => {
    const { resourceVersion: _rv, managedFields: _mf, ...meta } = c.metadata ?? {};
    const { capacity: _c, conditions: _k, allocatedResources: _a, allocatedResourceStatuses: _s, ...status } = c.status ?? {};
    return JSON.stringify(canonical({ ...c, metadata: meta, status }));
  };
  return strip(old) === strip(next);
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}
