import type { KubeObject } from '../../api/object.js';
import { isObject } from '../../api/object.js';
import { ApiError, badRequest } from '../../machinery/api-error.js';
import { readBody } from '../http/body.js';
import { decodeObjectBody } from '../http/decode.js';
import { writeBody } from '../http/respond.js';
import type { DeleteParams } from '../registry/registry-store.js';
import { selectionFrom } from '../selection.js';
import { render } from './render.js';
import { isDryRun, type RequestScope } from './scope.js';
import { writeAdmission } from './write-admission.js';
import { parseDeleteQuery } from '../../machinery/query/options.js';

const POLICIES = ['Orphan', 'Background', 'Foreground'];

/** DeleteOptions from the body or, when there is none, from the query, as upstream. */
export async function readDeleteOptions(scope: RequestScope): Promise<DeleteParams> {
  const body = await readBody(scope.req);
  const q = scope.query;
  // kubectl sends DeleteOptions as protobuf as readily as JSON
  const opts: Record<string, unknown> = body.length > 0 ? asObject(decodeObjectBody(body, scope.req.headers['content-type'])) : { ...parseDeleteQuery(q) };
  const params = deleteParamsFrom(opts);
  return { ...params, dryRun: isDryRun(q) || params.dryRun };
}

/** DeleteParams from a DeleteOptions object (a request body, or an Eviction's deleteOptions). */
export function deleteParamsFrom(opts: Record<string, unknown>): DeleteParams {
  const grace = opts.gracePeriodSeconds;
  const policy = opts.propagationPolicy;
  const orphan = opts.orphanDependents;
  const dryRunBody = Array.isArray(opts.dryRun) && opts.dryRun.includes('All');
  if (grace !== undefined && (typeof grace !== 'number' || !Number.isInteger(grace))) {
    throw badRequest('gracePeriodSeconds must be an integer');
  }
  if (policy !== undefined && (typeof policy !== 'string' || !POLICIES.includes(policy))) {
    throw new ApiError(422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan", "nil"`);
  }
  if (policy !== undefined && orphan !== undefined) {
    throw new ApiError(422, 'Invalid', 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "' + String(policy) + '": orphanDependents and deletionPropagation cannot be both set');
  }
  const pre = isObject(opts.preconditions) ? opts.preconditions : undefined;
  return {
    dryRun: dryRunBody,
    gracePeriodSeconds: grace as number | undefined,
    propagationPolicy: policy as string | undefined,
    orphanDependents: orphan as boolean | undefined,
    preconditions: pre ? { uid: pre.uid as string | undefined, resourceVersion: pre.resourceVersion as string | undefined } : undefined,
  };
}

function asObject(v: unknown): Record<string, unknown> {
  if (!isObject(v)) throw badRequest('DeleteOptions must be a JSON object');
  return v;
}

function successStatus(scope: RequestScope, obj: KubeObject) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: obj.metadata?.name, group: scope.resource.group || undefined, kind: scope.resource.resource, uid: obj.metadata?.uid },
  };
}

export async function handleDelete(scope: RequestScope): Promise<void> {
  const params = await readDeleteOptions(scope);
  const admission = writeAdmission(scope, params.dryRun);
  const { object, deleted } = await scope.store.delete(scope.info.namespace, scope.info.name, { ...params, admission, trace: scope.trace });
  if (deleted && !scope.store.strategy.returnDeletedObject) {
    writeBody(scope.res, 200, successStatus(scope, object));
    return;
  }
  // upstream answers 202 only for a pending delete that asked for cascading with orphanDependents=false
  writeBody(scope.res, !deleted && params.orphanDependents === false ? 202 : 200, ...render(scope, object));
}

export async function handleDeleteCollection(scope: RequestScope): Promise<void> {
  const params = await readDeleteOptions(scope);
  const selection = selectionFrom(scope.query, scope.store.strategy);
  const list = await scope.store.list(scope.info.namespace, selection);
  // each object is admitted on its own, as a DELETE of that object
  const admission = writeAdmission(scope, params.dryRun);
  const items: KubeObject[] = [];
  for (const item of list.items) {
    try {
      const { object } = await scope.store.delete(item.metadata?.namespace ?? '', item.metadata?.name ?? '', { ...params, admission, trace: scope.trace });
      items.push(object);
    } catch (err) {
      if (!ApiError.is(err, 'NotFound')) throw err;
    }
  }
  writeBody(scope.res, 200, { ...list, items });
}
