import type { ConfigMap, Namespace, ResourceQuota, Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN, fieldColumn } from './columns.js';
import { intOrString, quantity } from './format.js';
import { column, convertor } from './table-convertor.js';

/**
 * Tables for the smaller resources: namespaces, config maps, secrets,
 * service accounts, resource quotas, leases, disruption budgets and
 * priority classes.
 */

export const namespaceTable = convertor<Namespace>(
  [NAME_COLUMN, column('Status', 'string', 'The status of the namespace'), AGE_COLUMN],
  (ns, now) => [ns.metadata?.name ?? '', ns.status?.phase ?? '', translateTimestampSince(ns.metadata?.creationTimestamp, now)],
);

export const configMapTable = convertor<ConfigMap>(
  [NAME_COLUMN, fieldColumn('Data', 'string', 'ConfigMap.data'), AGE_COLUMN],
  (cm, now) => [
    cm.metadata?.name ?? '',
    Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length,
    translateTimestampSince(cm.metadata?.creationTimestamp, now),
  ],
);

export const secretTable = convertor<Secret>(
  [NAME_COLUMN, fieldColumn('Type', 'string', 'Secret.type'), fieldColumn('Data', 'string', 'Secret.data'), AGE_COLUMN],
  (s, now) => [s.metadata?.name ?? '', s.type ?? '', Object.keys(s.data ?? {}).length, translateTimestampSince(s.metadata?.creationTimestamp, now)],
);

export const serviceAccountTable = convertor<ServiceAccount>(
  [NAME_COLUMN, fieldColumn('Secrets', 'string', 'ServiceAccount.secrets'), AGE_COLUMN],
  (sa, now) => [sa.metadata?.name ?? '', sa.secrets?.length ?? 0, translateTimestampSince(sa.metadata?.creationTimestamp, now)],
);

/** `resource: used/hard` pairs, sorted by name, split into requests and `limits.*`. */
export function quotaColumns(rq: ResourceQuota): [requests: string, limits: string] {
  const hard = rq.status?.hard ?? {};
  const used = rq.status?.used ?? {};
  const requests: string[] = [];
  const limits: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const text = `${name}: ${quantity(used[name])}/${quantity(hard[name])}`;
    const parts = name.split('.');
    (parts.length > 1 && parts[0] === 'limits' ? limits : requests).push(text);
  }
  return [requests.join(', '), limits.join(', ')];
}

export const resourceQuotaTable = convertor<ResourceQuota>(
  [
    NAME_COLUMN,
    column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    AGE_COLUMN,
  ],
  (rq, now) => {
    const [requests, limits] = quotaColumns(rq);
    return [rq.metadata?.name ?? '', requests, limits, translateTimestampSince(rq.metadata?.creationTimestamp, now)];
  },
);

export const leaseTable = convertor<Lease>(
  [NAME_COLUMN, fieldColumn('Holder', 'string', 'LeaseSpec.holderIdentity'), AGE_COLUMN],
  (l, now) => [l.metadata?.name ?? '', l.spec?.holderIdentity ?? '', translateTimestampSince(l.metadata?.creationTimestamp, now)],
);

export const podDisruptionBudgetTable = convertor<PodDisruptionBudget>(
  [
    NAME_COLUMN,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    AGE_COLUMN,
  ],
  (pdb, now) => {
    const min = pdb.spec?.minAvailable;
    const max = pdb.spec?.maxUnavailable;
    return [
      pdb.metadata?.name ?? '',
      min === undefined || min === null ? 'N/A' : intOrString(min),
      max === undefined || max === null ? 'N/A' : intOrString(max),
      pdb.status?.disruptionsAllowed ?? 0,
      translateTimestampSince(pdb.metadata?.creationTimestamp, now),
    ];
  },
);

export const priorityClassTable = convertor<PriorityClass>(
  [
    NAME_COLUMN,
    fieldColumn('Value', 'integer', 'PriorityClass.value'),
    fieldColumn('Global-Default', 'boolean', 'PriorityClass.globalDefault'),
    AGE_COLUMN,
    fieldColumn('PreemptionPolicy', 'string', 'PriorityClass.preemptionPolicy'),
  ],
  (pc, now) => [
    pc.metadata?.name ?? '',
    pc.value ?? 0,
    pc.globalDefault ?? false,
    translateTimestampSince(pc.metadata?.creationTimestamp, now),
    pc.preemptionPolicy ?? '',
  ],
);
