import { badRequest } from '../../machinery/api-error.js';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.js';
import { writeBody } from '../http/respond.js';
import { checkName, readObject } from './object-body.js';
import { render } from './render.js';
import { isDryRun, type RequestScope } from './scope.js';

export async function handleCreate(scope: RequestScope): Promise<void> {
  const obj = await readObject(scope);
  const dryRun = isDryRun(scope.query);
  if (scope.resource.namespaced) await admitNamespaceLifecycle(scope.registry.namespaces, scope.info.namespace);
  if (!obj.metadata?.name && !obj.metadata?.generateName) {
    throw badRequest('name or generateName is required');
  }
  const created = await scope.store.create(obj, { dryRun });
  writeBody(scope.res, 201, ...render(scope, created));
}

export async function handleUpdate(scope: RequestScope): Promise<void> {
  const obj = await readObject(scope);
  checkName(scope, obj);
  const dryRun = isDryRun(scope.query);
  const subresource = scope.info.subresource === 'status' ? 'status' : undefined;
  if (scope.resource.namespaced && scope.store.strategy.allowCreateOnUpdate) {
    await admitNamespaceLifecycle(scope.registry.namespaces, scope.info.namespace).catch((err: unknown) => {
      // only creating needs a live namespace; updates of existing objects go on
      return scope.store.get(scope.info.namespace, scope.info.name).then(() => undefined, () => Promise.reject(err));
    });
  }
  const { object, created } = await scope.store.update(scope.info.namespace, scope.info.name, obj, { dryRun, subresource });
  writeBody(scope.res, created ? 201 : 200, ...render(scope, object));
}
