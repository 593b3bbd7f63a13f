/**
 * skiff's JSON of every served built-in kind against the bytes Go's
 * encoding/json writes for the upstream type. The expected texts are written
 * by hand from k8s.io/api's types.go (field order and json tags: `omitempty`
 * drops empty strings, zeros, nil/empty slices and maps, never a struct
 * value; a field without it prints its zero value or null; metav1.Time,
 * MicroTime and RawExtension zero values print null), not from skiff's own
 * output. Each fixture holds just metadata, empty lists and maps that must
 * vanish, and its keys reversed, so every byte past the metadata comes from
 * the encoder's knowledge of the type.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiVersionOf } from '../resource-info.js';
import { RESOURCES } from '../resources.js';
import { toGoForm } from './go-form.js';
import { goJson } from './go-json.js';

const TS = '2024-01-01T00:00:00Z';
const POD_TEMPLATE = '{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}';
const ROLE_REF = '"roleRef":{"apiGroup":"","kind":"","name":""}';
const NAMES = '{"plural":"","kind":""}';

/** Per kind (`group/Kind`): what follows `"metadata":{…},` in Go's encoding of an object holding only metadata. */
const EXPECTED_AFTER_METADATA: Record<string, string> = {
  '/Namespace': '"spec":{},"status":{}',
  '/Pod': '"spec":{"containers":null},"status":{}',
  '/Node':
    '"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"","architecture":""}}',
  '/Service': '"spec":{},"status":{"loadBalancer":{}}',
  '/Endpoints': '',
  '/ConfigMap': '',
  '/Secret': '',
  '/ServiceAccount': '',
  '/Event': '"involvedObject":{},"source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,"reportingComponent":"","reportingInstance":""',
  '/LimitRange': '"spec":{"limits":null}',
  '/ResourceQuota': '"spec":{},"status":{}',
  '/PersistentVolume': '"spec":{},"status":{}',
  '/PersistentVolumeClaim': '"spec":{"resources":{}},"status":{}',
  '/ReplicationController': '"spec":{},"status":{"replicas":0}',
  'apiextensions.k8s.io/CustomResourceDefinition': `"spec":{"group":"","names":${NAMES},"scope":"","versions":null},"status":{"acceptedNames":${NAMES},"storedVersions":null}`,
  // webhooks is omitempty
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': '',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': '',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': '"spec":{},"status":{}',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': '"spec":{}',
  // service is a pointer without omitempty; both priorities have no omitempty
  'apiregistration.k8s.io/APIService': '"spec":{"service":null,"groupPriorityMinimum":0,"versionPriority":0},"status":{}',
  'apps/Deployment': `"spec":{"selector":null,"template":${POD_TEMPLATE},"strategy":{}},"status":{}`,
  'apps/ReplicaSet': `"spec":{"selector":null,"template":${POD_TEMPLATE}},"status":{"replicas":0}`,
  // serviceName became optional (omitempty) when StatefulSets could run without a governing Service
  'apps/StatefulSet': `"spec":{"selector":null,"template":${POD_TEMPLATE},"updateStrategy":{}},"status":{"replicas":0,"availableReplicas":0}`,
  'apps/DaemonSet': `"spec":{"selector":null,"template":${POD_TEMPLATE},"updateStrategy":{}},"status":{"currentNumberScheduled":0,"numberMisscheduled":0,"desiredNumberScheduled":0,"numberReady":0}`,
  'apps/ControllerRevision': '"data":null,"revision":0',
  'authentication.k8s.io/SelfSubjectReview': '"status":{"userInfo":{}}',
  'authentication.k8s.io/TokenReview': '"spec":{},"status":{"user":{}}',
  'authorization.k8s.io/LocalSubjectAccessReview': '"spec":{},"status":{"allowed":false}',
  'authorization.k8s.io/SelfSubjectAccessReview': '"spec":{},"status":{"allowed":false}',
  'authorization.k8s.io/SelfSubjectRulesReview': '"spec":{},"status":{"resourceRules":null,"nonResourceRules":null,"incomplete":false}',
  'authorization.k8s.io/SubjectAccessReview': '"spec":{},"status":{"allowed":false}',
  'batch/Job': `"spec":{"template":${POD_TEMPLATE}},"status":{}`,
  'batch/CronJob': `"spec":{"schedule":"","jobTemplate":{"metadata":{"creationTimestamp":null},"spec":{"template":${POD_TEMPLATE}}}},"status":{}`,
  'certificates.k8s.io/CertificateSigningRequest': '"spec":{"request":null,"signerName":""},"status":{}',
  'coordination.k8s.io/Lease': '"spec":{}',
  'discovery.k8s.io/EndpointSlice': '"addressType":"","endpoints":null,"ports":null',
  'events.k8s.io/Event': '"eventTime":null,"regarding":{},"deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null',
  // one kind in two versions: the fixture of each version is keyed with it
  'autoscaling/v2/HorizontalPodAutoscaler': '"spec":{"scaleTargetRef":{"kind":"","name":""},"maxReplicas":0},"status":{"desiredReplicas":0}',
  'autoscaling/v1/HorizontalPodAutoscaler': '"spec":{"scaleTargetRef":{"kind":"","name":""},"maxReplicas":0},"status":{"currentReplicas":0,"desiredReplicas":0}',
  'policy/PodDisruptionBudget': '"spec":{},"status":{"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0}',
  'rbac.authorization.k8s.io/ClusterRoleBinding': ROLE_REF,
  'rbac.authorization.k8s.io/ClusterRole': '"rules":null',
  'rbac.authorization.k8s.io/RoleBinding': ROLE_REF,
  'rbac.authorization.k8s.io/Role': '"rules":null',
  'scheduling.k8s.io/PriorityClass': '"value":0',
  'flowcontrol.apiserver.k8s.io/FlowSchema': '"spec":{"priorityLevelConfiguration":{"name":""},"matchingPrecedence":0},"status":{}',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration': '"spec":{"type":""},"status":{}',
  // IngressStatus.loadBalancer is a struct value: always printed
  'networking.k8s.io/Ingress': '"spec":{},"status":{"loadBalancer":{}}',
  'networking.k8s.io/IngressClass': '"spec":{}',
  // NetworkPolicySpec.podSelector is a LabelSelector value; NetworkPolicy has had no status since 1.27
  'networking.k8s.io/NetworkPolicy': '"spec":{"podSelector":{}}',
  // StorageClass.provisioner has no omitempty
  'storage.k8s.io/StorageClass': '"provisioner":""',
  'storage.k8s.io/CSIDriver': '"spec":{}',
  'storage.k8s.io/CSINode': '"spec":{"drivers":null}',
  'storage.k8s.io/VolumeAttachment': '"spec":{"attacher":"","source":{},"nodeName":""},"status":{"attached":false}',
};

/** Kinds whose encoding is known not to match yet (skiff has no type table for them). */
const KNOWN_GAPS = new Set(['apiextensions.k8s.io/CustomResourceDefinition']);

function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)]));
}

for (const info of RESOURCES) {
  const id = `${info.group}/${info.kind}`;
  test(`${apiVersionOf(info)}/${info.kind}: Go's bytes for the upstream type`, { todo: KNOWN_GAPS.has(id) ? 'no Go type table for this kind yet' : undefined }, () => {
    const expected = EXPECTED_AFTER_METADATA[`${info.group}/${info.version}/${info.kind}`] ?? EXPECTED_AFTER_METADATA[id];
    assert.ok(expected !== undefined, `${id} is served but has no fixture here`);
    const metadata = info.namespaced
      ? `{"name":"x","namespace":"d","uid":"u","resourceVersion":"5","creationTimestamp":"${TS}"}`
      : `{"name":"x","uid":"u","resourceVersion":"5","creationTimestamp":"${TS}"}`;
    // empty lists and maps the tags say to omit, in an order the encoder must fix
    const input = {
      metadata: { creationTimestamp: TS, ownerReferences: [], finalizers: [], labels: {}, annotations: {}, resourceVersion: '5', uid: 'u', ...(info.namespaced ? { namespace: 'd' } : {}), name: 'x' },
      apiVersion: apiVersionOf(info),
      kind: info.kind,
    };
    const want = `{"kind":"${info.kind}","apiVersion":"${apiVersionOf(info)}","metadata":${metadata}${expected ? `,${expected}` : ''}}\n`;
    assert.equal(goJson(toGoForm(reversed(input))), want);
  });
}

test('every fixture names a served kind', () => {
  const served = new Set(RESOURCES.flatMap((r) => [`${r.group}/${r.kind}`, `${r.group}/${r.version}/${r.kind}`]));
  for (const id of Object.keys(EXPECTED_AFTER_METADATA)) assert.ok(served.has(id), id);
});
