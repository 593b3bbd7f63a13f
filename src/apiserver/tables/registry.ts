import { flowSchemaTable, priorityLevelConfigurationTable } from './flowcontrol.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import { cronJobTable, jobTable } from './batch.js';
import { horizontalPodAutoscalerTable } from './autoscaling.js';
import { certificateSigningRequestTable } from './certificates.js';
import {
  configMapTable,
  leaseTable,
  namespaceTable,
  podDisruptionBudgetTable,
  priorityClassTable,
  resourceQuotaTable,
  secretTable,
  serviceAccountTable,
} from './core-misc.js';
import { defaultTable } from './default-table.js';
import { eventTable, eventsV1Table } from './events.js';
import { webhookConfigurationTable } from './admission-webhooks.js';
import { apiServiceTable } from './api-services.js';
import { validatingAdmissionPolicyBindingTable, validatingAdmissionPolicyTable } from './admission-policies.js';
import { ingressClassTable, ingressTable, networkPolicyTable } from './networking.js';
import { nodeTable } from './nodes.js';
import { podTable } from './pods.js';
import { clusterRoleBindingTable, roleBindingTable } from './rbac.js';
import { endpointSliceTable, endpointsTable, serviceTable } from './services.js';
import type { TableConvertor } from './table-convertor.js';
import { csiDriverTable, csiNodeTable, storageClassTable, volumeAttachmentTable } from './storage.js';
import { persistentVolumeClaimTable, persistentVolumeTable } from './volumes.js';
import { controllerRevisionTable, daemonSetTable, deploymentTable, replicaSetTable, replicationControllerTable, statefulSetTable } from './workloads.js';

/** Printers by `resource.group` (the version does not change the columns). */
const CONVERTORS: ReadonlyMap<string, TableConvertor> = new Map([
  ['pods', podTable],
  ['nodes', nodeTable],
  ['namespaces', namespaceTable],
  ['services', serviceTable],
  ['endpoints', endpointsTable],
  ['configmaps', configMapTable],
  ['secrets', secretTable],
  ['serviceaccounts', serviceAccountTable],
  ['events', eventTable],
  ['resourcequotas', resourceQuotaTable],
  ['persistentvolumes', persistentVolumeTable],
  ['persistentvolumeclaims', persistentVolumeClaimTable],
  ['replicationcontrollers', replicationControllerTable],
  ['deployments.apps', deploymentTable],
  ['replicasets.apps', replicaSetTable],
  ['statefulsets.apps', statefulSetTable],
  ['daemonsets.apps', daemonSetTable],
  ['controllerrevisions.apps', controllerRevisionTable],
  ['jobs.batch', jobTable],
  ['cronjobs.batch', cronJobTable],
  ['certificatesigningrequests.certificates.k8s.io', certificateSigningRequestTable],
  ['leases.coordination.k8s.io', leaseTable],
  ['endpointslices.discovery.k8s.io', endpointSliceTable],
  ['events.events.k8s.io', eventsV1Table],
  ['mutatingwebhookconfigurations.admissionregistration.k8s.io', webhookConfigurationTable],
  ['apiservices.apiregistration.k8s.io', apiServiceTable],
  ['validatingwebhookconfigurations.admissionregistration.k8s.io', webhookConfigurationTable],
  ['validatingadmissionpolicies.admissionregistration.k8s.io', validatingAdmissionPolicyTable],
  ['validatingadmissionpolicybindings.admissionregistration.k8s.io', validatingAdmissionPolicyBindingTable],
  ['ingresses.networking.k8s.io', ingressTable],
  ['ingressclasses.networking.k8s.io', ingressClassTable],
  ['networkpolicies.networking.k8s.io', networkPolicyTable],
  ['storageclasses.storage.k8s.io', storageClassTable],
  ['csidrivers.storage.k8s.io', csiDriverTable],
  ['csinodes.storage.k8s.io', csiNodeTable],
  ['volumeattachments.storage.k8s.io', volumeAttachmentTable],
  ['poddisruptionbudgets.policy', podDisruptionBudgetTable],
  ['horizontalpodautoscalers.autoscaling', horizontalPodAutoscalerTable],
  ['rolebindings.rbac.authorization.k8s.io', roleBindingTable],
  ['clusterrolebindings.rbac.authorization.k8s.io', clusterRoleBindingTable],
  ['priorityclasses.scheduling.k8s.io', priorityClassTable],
  ['flowschemas.flowcontrol.apiserver.k8s.io', flowSchemaTable],
  ['prioritylevelconfigurations.flowcontrol.apiserver.k8s.io', priorityLevelConfigurationTable],
]);

/**
 * The printer of a built-in resource; resources upstream has no printer for
 * (e.g. limitranges) get the default table. Each RegistryStore carries its
 * printer, so custom resources bring their own.
 */
export function tableConvertorFor(info: Pick<ResourceInfo, 'group' | 'resource'>): TableConvertor {
  const key = info.group ? `${info.resource}.${info.group}` : info.resource;
  return CONVERTORS.get(key) ?? defaultTable;
}
