import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { asKind, asObject, isObject, type KubeObject } from '../../api/object.js';
import { ApiError, badRequest, forbidden, internalError } from '../../machinery/api-error.js';
import { labelSelectorFromObject } from '../../machinery/labels/index.js';
import { formatTime } from '../../machinery/time.js';
import { readBody } from '../http/body.js';
import { decodeObjectBody } from '../http/decode.js';
import { writeBody } from '../http/respond.js';
import type { DeleteParams, RegistryStore } from '../registry/registry-store.js';
import { deleteParamsFrom } from './delete.js';
import { isDryRun, type RequestScope } from './scope.js';
import { writeAdmission } from './write-admission.js';

/** Upstream's message when a PodDisruptionBudget forbids an eviction. */
export const EVICTION_BLOCKED_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";
/** Upstream's MaxDisruptedPodSize: the PDB's record of evictions in flight may not grow past this. */
const MAX_DISRUPTED_POD_SIZE = 2000;
const EVICTION_VERSIONS = ['policy/v1', 'policy/v1beta1'];

function tooManyRequests(cause: string): ApiError {
  return new ApiError(429, 'TooManyRequests', EVICTION_BLOCKED_MESSAGE, { causes: [{ reason: 'DisruptionBudget', message: cause }] });
}

function isReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Pods that are not (or no longer) running count for no budget (upstream's canIgnorePDB). */
function canIgnorePDB(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || Boolean(pod.metadata?.deletionTimestamp);
}

/**
 * POST pods/{name}/eviction (policy/v1 Eviction): deletes the pod unless a
 * PodDisruptionBudget covering it has no disruption left, which is a 429 the
 * client retries (kubectl drain does). An allowed eviction takes one
 * disruption from the budget's status and records the pod in
 * `disruptedPods` until the disruption controller sees it gone.
 */
export async function handleEviction(scope: RequestScope): Promise<void> {
  const body = decodeObjectBody(await readBody(scope.req), scope.req.headers['content-type']);
  if (body.kind !== 'Eviction' || !EVICTION_VERSIONS.includes(String(body.apiVersion))) {
    throw badRequest(`the body of the request was not an Eviction (got ${String(body.apiVersion ?? '')} ${String(body.kind ?? '')})`);
  }
  const { namespace, name } = scope.info;
  if (body.metadata?.name && body.metadata.name !== name) throw badRequest('name in URL does not match name in Eviction object');
  const options: DeleteParams = isObject(body.deleteOptions) ? deleteParamsFrom(body.deleteOptions) : { dryRun: false };
  const params: DeleteParams = { ...options, dryRun: isDryRun(scope.query) || options.dryRun };
  const pod = asKind<Pod>(await scope.store.get(namespace, name));
  const pdbs = scope.registry.lookup('policy', 'v1', 'poddisruptionbudgets');
  if (!canIgnorePDB(pod) && pdbs) {
    const matching = (await pdbs.list(namespace, {})).items
      .map((i) => asKind<PodDisruptionBudget>(i))
      .filter((pdb) => {
        try {
          return labelSelectorFromObject(pdb.spec?.selector).matches(pod.metadata?.labels ?? {});
        } catch {
          return false;
        }
      });
    if (matching.length > 1) throw internalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    if (matching.length === 1) await checkAndDecrement(scope, pdbs, matching[0], pod, params.dryRun);
  }
  await scope.store.delete(namespace, name, { ...params, admission: writeAdmission(scope, params.dryRun), trace: scope.trace });
  writeBody(scope.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}

async function checkAndDecrement(scope: RequestScope, pdbs: RegistryStore, pdb: PodDisruptionBudget, pod: Pod, dryRun: boolean): Promise<void> {
  const pdbName = pdb.metadata?.name ?? '';
  const status = pdb.status;
  // an unready pod does not count as healthy: evicting it costs nothing while the budget is met
  const policy = pdb.spec?.unhealthyPodEvictionPolicy ?? 'IfHealthyBudget';
  if (!isReady(pod) && (policy === 'AlwaysAllow' || (status && (status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0) && (status.desiredHealthy ?? 0) > 0))) return;
  await pdbs.guaranteedUpdate(
    pdb.metadata?.namespace ?? '',
    pdbName,
    (current) => {
      if (!current) throw tooManyRequests(`The disruption budget ${pdbName} is still being processed by the server.`);
      const live = asKind<PodDisruptionBudget>(current);
      const s = live.status;
      if (!s || (s.observedGeneration ?? 0) < (live.metadata?.generation ?? 0)) {
        throw tooManyRequests(`The disruption budget ${pdbName} is still being processed by the server.`);
      }
      if (s.disruptionsAllowed < 0) throw forbidden('pdb disruptions allowed is negative');
      if (Object.keys(s.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) throw forbidden('DisruptedPods map too big - too many evictions not confirmed by PDB controller');
      if (s.disruptionsAllowed === 0) {
        throw tooManyRequests(`The disruption budget ${pdbName} needs ${s.desiredHealthy} healthy pods and has ${s.currentHealthy} currently`);
      }
      const next: PodDisruptionBudget = {
        ...live,
        status: { ...s, disruptionsAllowed: s.disruptionsAllowed - 1, disruptedPods: { ...s.disruptedPods, [pod.metadata?.name ?? '']: formatTime(scope.now()) } },
      };
      return asObject(next) as KubeObject;
    },
    { dryRun, trace: scope.trace },
  );
}
