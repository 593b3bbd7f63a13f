import type { Binding, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../api/object.js';
import { asKind, asObject, isObject } from '../../api/object.js';
import { ApiError, badRequest, conflict, notFound } from '../../machinery/api-error.js';
import { labelSelectorAsString } from '../../machinery/labels/index.js';
import { invalid } from '../../machinery/invalid.js';
import { formatTime } from '../../machinery/time.js';
import { writeBody } from '../http/respond.js';
import { checkName, readObject } from './object-body.js';
import { applyPatch, readPatch } from './patch.js';
import { isDryRun, type RequestScope } from './scope.js';
import { admissionAttributes } from './write-admission.js';
import { customResourceScale, withCustomResourceReplicas } from '../apiextensions/custom-resource-scale.js';
import { customResourceFacts } from '../apiextensions/custom-resource-serving.js';

const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
const BINDING_KIND = { group: '', version: 'v1', kind: 'Binding' };

/** autoscaling/v1 Scale view of a workload's replicas. */
function workloadScale(obj: KubeObject): KubeObject {
  const spec = (obj.spec ?? {}) as { replicas?: number; selector?: Parameters<typeof labelSelectorAsString>[0] | Record<string, string> };
  const status = (obj.status ?? {}) as { replicas?: number };
  const meta = obj.metadata ?? {};
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: spec.replicas ?? 0 },
    // a core/v1 ReplicationController's selector is a plain label map
    status: { replicas: status.replicas ?? 0, selector: labelSelectorAsString(obj.kind === 'ReplicationController' ? { matchLabels: spec.selector as Record<string, string> } : spec.selector) },
  };
}

function replicasOf(scale: KubeObject, name: string): number {
  const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
  if (replicas === undefined) return 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [
      { type: 'FieldValueInvalid', field: 'spec.replicas', badValue: replicas, detail: 'must be greater than or equal to 0' },
    ]);
  }
  return replicas;
}

export async function handleScale(scope: RequestScope): Promise<void> {
  // a custom resource's replicas live where its CRD says
  const paths = customResourceFacts(scope.resource)?.version.subresources?.scale;
  const toScale = paths ? (o: KubeObject) => customResourceScale(o, paths) : workloadScale;
  const withReplicas = paths ? (o: KubeObject, n: number) => withCustomResourceReplicas(o, paths, n) : workloadWithReplicas;
  const { namespace, name } = scope.info;
  if (scope.info.verb === 'get') {
    writeBody(scope.res, 200, toScale(await scope.store.get(namespace, name)));
    return;
  }
  const dryRun = isDryRun(scope.query);
  let next: (current: KubeObject) => KubeObject;
  if (scope.info.verb === 'update') {
    const body = await readObject(scope, 'Scale', 'autoscaling/v1');
    checkName(scope, body);
    next = (current) => {
      const rv = body.metadata?.resourceVersion;
      if (rv && rv !== current.metadata?.resourceVersion) {
        throw conflict(scope.store.groupResource, name, 'the object has been modified; please apply your changes to the latest version and try again');
      }
      return withReplicas(current, replicasOf(body, name));
    };
  } else if (scope.info.verb === 'patch') {
    const { type, patch } = await readPatch(scope);
    next = (current) => withReplicas(current, replicasOf(applyPatch(toScale(current), type, patch), name));
  } else {
    throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
  }
  const { object } = await scope.store.update(
    namespace,
    name,
    async (current) => {
      if (!current) throw notFound(scope.store.groupResource, name);
      // admission sees the Scale, as upstream's scale subresource presents it
      const oldScale = toScale(current);
      const scale = toScale(next(current));
      await scope.admission.admit(admissionAttributes(scope, 'UPDATE', scale, oldScale, dryRun, SCALE_KIND));
      const updated = withReplicas(current, replicasOf(scale, name));
      await scope.admission.validate(admissionAttributes(scope, 'UPDATE', toScale(updated), oldScale, dryRun, SCALE_KIND));
      return updated;
    },
    { dryRun, trace: scope.trace },
  );
  writeBody(scope.res, 200, toScale(object));
}

function workloadWithReplicas(obj: KubeObject, replicas: number): KubeObject {
  return { ...obj, spec: { ...(obj.spec as object), replicas } };
}

/** POST pods/{name}/binding: the scheduler's decision, written once. */
export async function handleBinding(scope: RequestScope): Promise<void> {
  const binding = asKind<Binding>(await readObject(scope, 'Binding', 'v1'));
  const name = binding.metadata?.name || scope.info.name;
  if (scope.info.name && binding.metadata?.name && binding.metadata.name !== scope.info.name) {
    throw badRequest(`the name of the object (${binding.metadata.name}) does not match the name on the URL (${scope.info.name})`);
  }
  const node = binding.target?.name;
  if (!node) {
    throw invalid({ group: '', kind: 'Binding' }, name, [{ type: 'FieldValueRequired', field: 'target.name' }]);
  }
  const dryRun = isDryRun(scope.query);
  const bindingObject = asObject(binding);
  await scope.admission.admit(admissionAttributes(scope, 'CREATE', bindingObject, undefined, dryRun, BINDING_KIND));
  await scope.admission.validate(admissionAttributes(scope, 'CREATE', bindingObject, undefined, dryRun, BINDING_KIND));
  const now = formatTime(scope.now());
  await scope.store.guaranteedUpdate(
    scope.info.namespace,
    name,
    (current) => {
      if (!current) throw notFound(scope.store.groupResource, name);
      const pod = asKind<Pod>(current);
      if (pod.metadata?.deletionTimestamp) {
        throw conflict(scope.store.groupResource, name, `pod ${name} is being deleted, cannot be assigned to a host`);
      }
      if (pod.spec?.nodeName) {
        throw conflict(scope.store.groupResource, name, `pod ${name} is already assigned to node "${pod.spec.nodeName}"`);
      }
      pod.spec = { ...pod.spec!, nodeName: node };
      const conditions: PodCondition[] = (pod.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
      conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null as unknown as string, lastTransitionTime: now });
      pod.status = { ...pod.status, conditions };
      for (const [k, v] of Object.entries(binding.metadata?.annotations ?? {})) {
        (pod.metadata!.annotations ??= {})[k] = v;
      }
      return asObject(pod);
    },
    { dryRun, trace: scope.trace },
  );
  writeBody(scope.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}
