import { RESOURCES } from './resources.js';

/** Group, version and plural resource of a built-in: what clients address. */
export interface ResourceRef {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/**
 * The built-in resource `resource` of `group`, read from the `RESOURCES`
 * table (its served version comes from there); a name the table lacks fails
 * at load time, so these constants cannot drift from what the server serves.
 */
export function builtinResource(resource: string, group = ''): ResourceRef {
  const info = RESOURCES.find((r) => r.group === group && r.resource === resource);
  if (!info) throw new Error(`${group ? `${resource}.${group}` : resource} is not a built-in resource`);
  return { group: info.group, version: info.version, resource: info.resource };
}

export const NAMESPACES = builtinResource('namespaces');
export const PODS = builtinResource('pods');
export const NODES = builtinResource('nodes');
export const SERVICES = builtinResource('services');
export const ENDPOINTS = builtinResource('endpoints');
export const CONFIG_MAPS = builtinResource('configmaps');
export const SECRETS = builtinResource('secrets');
export const SERVICE_ACCOUNTS = builtinResource('serviceaccounts');
export const EVENTS = builtinResource('events');
export const LIMIT_RANGES = builtinResource('limitranges');
export const RESOURCE_QUOTAS = builtinResource('resourcequotas');
export const PERSISTENT_VOLUMES = builtinResource('persistentvolumes');
export const PERSISTENT_VOLUME_CLAIMS = builtinResource('persistentvolumeclaims');
export const STORAGE_CLASSES = builtinResource('storageclasses', 'storage.k8s.io');
export const REPLICATION_CONTROLLERS = builtinResource('replicationcontrollers');
export const CUSTOM_RESOURCE_DEFINITIONS = builtinResource('customresourcedefinitions', 'apiextensions.k8s.io');
export const DEPLOYMENTS = builtinResource('deployments', 'apps');
export const REPLICA_SETS = builtinResource('replicasets', 'apps');
export const STATEFUL_SETS = builtinResource('statefulsets', 'apps');
export const HORIZONTAL_POD_AUTOSCALERS = builtinResource('horizontalpodautoscalers', 'autoscaling');
export const DAEMON_SETS = builtinResource('daemonsets', 'apps');
export const CONTROLLER_REVISIONS = builtinResource('controllerrevisions', 'apps');
export const JOBS = builtinResource('jobs', 'batch');
export const CRON_JOBS = builtinResource('cronjobs', 'batch');
export const LEASES = builtinResource('leases', 'coordination.k8s.io');
export const ENDPOINT_SLICES = builtinResource('endpointslices', 'discovery.k8s.io');
export const EVENTS_V1 = builtinResource('events', 'events.k8s.io');
export const POD_DISRUPTION_BUDGETS = builtinResource('poddisruptionbudgets', 'policy');
export const CERTIFICATE_SIGNING_REQUESTS = builtinResource('certificatesigningrequests', 'certificates.k8s.io');
export const SUBJECT_ACCESS_REVIEWS = builtinResource('subjectaccessreviews', 'authorization.k8s.io');
export const TOKEN_REVIEWS = builtinResource('tokenreviews', 'authentication.k8s.io');
export const CLUSTER_ROLES = builtinResource('clusterroles', 'rbac.authorization.k8s.io');
export const CLUSTER_ROLE_BINDINGS = builtinResource('clusterrolebindings', 'rbac.authorization.k8s.io');
export const ROLES = builtinResource('roles', 'rbac.authorization.k8s.io');
export const ROLE_BINDINGS = builtinResource('rolebindings', 'rbac.authorization.k8s.io');
export const PRIORITY_CLASSES = builtinResource('priorityclasses', 'scheduling.k8s.io');
export const NETWORK_POLICIES = builtinResource('networkpolicies', 'networking.k8s.io');
