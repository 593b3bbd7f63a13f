import type { Namespace } from 'kubernetes-types/core/v1.js';
import { asKind, asObject } from '../../api/object.js';
import { notFound } from '../../machinery/api-error.js';
import { writeBody } from '../http/respond.js';
import { checkName, readObject } from './object-body.js';
import { render } from './render.js';
import { isDryRun, type RequestScope } from './scope.js';
import { writeAdmission } from './write-admission.js';

/** PUT namespaces/{name}/finalize: the namespace controller removes spec.finalizers here. */
export async function handleFinalize(scope: RequestScope): Promise<void> {
  const raw = await readObject(scope);
  checkName(scope, raw);
  const body = asKind<Namespace>(raw);
  const dryRun = isDryRun(scope.query);
  const { object } = await scope.store.update(
    '',
    scope.info.name,
    (current) => {
      if (!current) throw notFound(scope.store.groupResource, scope.info.name);
      const ns = asKind<Namespace>(current);
      ns.spec = { ...ns.spec, finalizers: body.spec?.finalizers ?? [] };
      // an emptied list stays (empty): defaulting only fills in a missing one
      return asObject(ns);
    },
    { dryRun, subresource: 'finalize', admission: writeAdmission(scope, dryRun), trace: scope.trace },
  );
  writeBody(scope.res, 200, ...render(scope, object));
}
