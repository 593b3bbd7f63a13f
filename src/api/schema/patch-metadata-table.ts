import type { FieldPatchMeta, PatchMetadataTable } from './patch-metadata.js';

// The facts are upstream's Go struct tags (patchStrategy, patchMergeKey) and
// the +listType/+listMapKey/+mapType markers of k8s.io/api (core/v1, apps/v1,
// batch/v1, discovery/v1, policy/v1) and k8s.io/apimachinery meta/v1, for the
// types skiff serves. Fields not listed have no strategy: maps merge, lists
// are replaced whole.

const atomic: FieldPatchMeta = { listType: 'atomic' };
const set: FieldPatchMeta = { listType: 'set' };
const atomicMap: FieldPatchMeta = { mapType: 'atomic' };

/** A list merged by `key` under strategic merge patch and keyed by `mapKeys` under server-side apply. */
function mergeBy(key: string, mapKeys: string[] = [key]): FieldPatchMeta {
  return { patchStrategy: 'merge', patchMergeKey: key, listType: 'map', listMapKeys: mapKeys };
}

/** Status conditions: one entry per type. */
const conditions = mergeBy('type');

const container: Record<string, FieldPatchMeta> = {
  command: atomic,
  args: atomic,
  ports: mergeBy('containerPort', ['containerPort', 'protocol']),
  envFrom: atomic,
  env: mergeBy('name'),
  volumeMounts: mergeBy('mountPath'),
  volumeDevices: mergeBy('devicePath'),
  resizePolicy: atomic,
};

const labelSelector: Record<string, FieldPatchMeta> = { matchExpressions: atomic };
const keyToPathItems: Record<string, FieldPatchMeta> = { items: atomic };

export const PATCH_METADATA: PatchMetadataTable = {
  // meta/v1
  'meta/v1.ObjectMeta': {
    finalizers: { patchStrategy: 'merge', listType: 'set' },
    ownerReferences: mergeBy('uid'),
    managedFields: atomic,
  },
  'meta/v1.LabelSelector': labelSelector,
  'meta/v1.LabelSelectorRequirement': { values: atomic },

  // core/v1: pods and their templates
  'core/v1.PodSpec': {
    volumes: { ...mergeBy('name'), patchStrategy: 'merge,retainKeys' },
    initContainers: mergeBy('name'),
    containers: mergeBy('name'),
    ephemeralContainers: mergeBy('name'),
    imagePullSecrets: mergeBy('name'),
    tolerations: atomic,
    hostAliases: mergeBy('ip'),
    readinessGates: atomic,
    topologySpreadConstraints: mergeBy('topologyKey', ['topologyKey', 'whenUnsatisfiable']),
    resourceClaims: { ...mergeBy('name'), patchStrategy: 'merge,retainKeys' },
    schedulingGates: mergeBy('name'),
    nodeSelector: atomicMap,
  },
  'core/v1.Container': container,
  'core/v1.EphemeralContainer': container,
  'core/v1.ResourceRequirements': { claims: { listType: 'map', listMapKeys: ['name'] } },
  'core/v1.PodSecurityContext': { supplementalGroups: atomic, sysctls: atomic },
  'core/v1.PodDNSConfig': { nameservers: atomic, searches: atomic, options: atomic },
  'core/v1.HostAlias': { hostnames: atomic },
  'core/v1.Capabilities': { add: atomic, drop: atomic },
  'core/v1.ExecAction': { command: atomic },
  'core/v1.HTTPGetAction': { httpHeaders: atomic },
  'core/v1.NodeSelector': { nodeSelectorTerms: atomic },
  'core/v1.NodeSelectorTerm': { matchExpressions: atomic, matchFields: atomic },
  'core/v1.NodeSelectorRequirement': { values: atomic },
  'core/v1.NodeAffinity': { preferredDuringSchedulingIgnoredDuringExecution: atomic },
  'core/v1.PodAffinity': { requiredDuringSchedulingIgnoredDuringExecution: atomic, preferredDuringSchedulingIgnoredDuringExecution: atomic },
  'core/v1.PodAntiAffinity': { requiredDuringSchedulingIgnoredDuringExecution: atomic, preferredDuringSchedulingIgnoredDuringExecution: atomic },
  'core/v1.PodAffinityTerm': { namespaces: atomic, matchLabelKeys: atomic, mismatchLabelKeys: atomic },
  'core/v1.TopologySpreadConstraint': { matchLabelKeys: atomic },
  'core/v1.ConfigMapVolumeSource': keyToPathItems,
  'core/v1.SecretVolumeSource': keyToPathItems,
  'core/v1.ConfigMapProjection': keyToPathItems,
  'core/v1.SecretProjection': keyToPathItems,
  'core/v1.DownwardAPIVolumeSource': keyToPathItems,
  'core/v1.DownwardAPIProjection': keyToPathItems,
  'core/v1.ProjectedVolumeSource': { sources: atomic },
  'core/v1.CephFSVolumeSource': { monitors: atomic },
  'core/v1.CephFSPersistentVolumeSource': { monitors: atomic },
  'core/v1.RBDVolumeSource': { monitors: atomic },
  'core/v1.RBDPersistentVolumeSource': { monitors: atomic },
  'core/v1.ISCSIVolumeSource': { portals: atomic },
  'core/v1.ISCSIPersistentVolumeSource': { portals: atomic },
  'core/v1.FCVolumeSource': { targetWWNs: atomic, wwids: atomic },
  'core/v1.PodStatus': {
    conditions,
    podIPs: mergeBy('ip'),
    hostIPs: { patchStrategy: 'merge', patchMergeKey: 'ip', listType: 'atomic' },
    initContainerStatuses: atomic,
    containerStatuses: atomic,
    ephemeralContainerStatuses: atomic,
    resourceClaimStatuses: { ...mergeBy('name'), patchStrategy: 'merge,retainKeys' },
  },
  'core/v1.ContainerStatus': { volumeMounts: mergeBy('mountPath') },

  // core/v1: everything else
  'core/v1.ServiceSpec': {
    ports: mergeBy('port', ['port', 'protocol']),
    selector: atomicMap,
    externalIPs: atomic,
    loadBalancerSourceRanges: atomic,
    clusterIPs: atomic,
    ipFamilies: atomic,
  },
  'core/v1.ServiceStatus': { conditions },
  'core/v1.LoadBalancerStatus': { ingress: atomic },
  'core/v1.LoadBalancerIngress': { ports: atomic },
  'core/v1.NodeSpec': { podCIDRs: { patchStrategy: 'merge', listType: 'set' }, taints: atomic },
  'core/v1.NodeStatus': {
    conditions,
    addresses: mergeBy('type'),
    images: atomic,
    volumesInUse: atomic,
    volumesAttached: atomic,
    runtimeHandlers: atomic,
  },
  'core/v1.ContainerImage': { names: atomic },
  'core/v1.NamespaceSpec': { finalizers: atomic },
  'core/v1.NamespaceStatus': { conditions },
  'core/v1.Endpoints': { subsets: atomic },
  'core/v1.EndpointSubset': { addresses: atomic, notReadyAddresses: atomic, ports: atomic },
  'core/v1.ServiceAccount': { secrets: mergeBy('name'), imagePullSecrets: atomic },
  'core/v1.LimitRangeSpec': { limits: atomic },
  'core/v1.ResourceQuotaSpec': { scopes: atomic },
  'core/v1.ScopeSelector': { matchExpressions: atomic },
  'core/v1.ScopedResourceSelectorRequirement': { values: atomic },
  'core/v1.PersistentVolumeClaimSpec': { accessModes: atomic },
  'core/v1.PersistentVolumeClaimStatus': { accessModes: atomic, conditions },
  'core/v1.PersistentVolumeSpec': { accessModes: atomic, mountOptions: atomic },

  // apps/v1
  'apps/v1.DeploymentSpec': { strategy: { patchStrategy: 'retainKeys' } },
  'apps/v1.DeploymentStatus': { conditions },
  'apiregistration/v1.APIServiceStatus': { conditions },
  'apps/v1.ReplicaSetStatus': { conditions },
  'core/v1.ReplicationControllerStatus': { conditions },
  'apps/v1.DaemonSetStatus': { conditions },
  'apps/v1.StatefulSetSpec': { volumeClaimTemplates: atomic },
  'apps/v1.StatefulSetStatus': { conditions },

  // batch/v1
  'batch/v1.JobStatus': {
    // merged by type under strategic merge patch, yet atomic for apply
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'atomic' },
  },
  'batch/v1.UncountedTerminatedPods': { succeeded: set, failed: set },
  'batch/v1.PodFailurePolicy': { rules: atomic },
  'batch/v1.PodFailurePolicyRule': { onPodConditions: atomic },
  'batch/v1.PodFailurePolicyOnExitCodesRequirement': { values: set },
  'batch/v1.SuccessPolicy': { rules: atomic },
  'batch/v1.CronJobStatus': { active: atomic },

  // discovery/v1
  'discovery/v1.EndpointSlice': { endpoints: atomic, ports: atomic },
  'discovery/v1.Endpoint': { addresses: set },
  'discovery/v1.EndpointHints': { forZones: atomic },

  // policy/v1
  'policy/v1.PodDisruptionBudgetSpec': { selector: { patchStrategy: 'replace' } },
  'policy/v1.PodDisruptionBudgetStatus': { conditions },
};

/**
 * Struct types marked `+structType=atomic` (or `+mapType=atomic` on the
 * struct): server-side apply replaces them whole. Strategic merge patch
 * ignores the marker, as upstream does.
 */
export const ATOMIC_STRUCT_TYPES: ReadonlySet<string> = new Set([
  'meta/v1.LabelSelector',
  'meta/v1.OwnerReference',
  'core/v1.LocalObjectReference',
  'core/v1.ObjectReference',
  'core/v1.TypedLocalObjectReference',
  'core/v1.SecretReference',
  'core/v1.ConfigMapKeySelector',
  'core/v1.SecretKeySelector',
  'core/v1.ObjectFieldSelector',
  'core/v1.ResourceFieldSelector',
  'core/v1.NodeSelector',
  'core/v1.NodeSelectorTerm',
  'core/v1.ScopeSelector',
]);
