import { badRequest } from '../../machinery/api-error.js';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.js';
import { admitPodPriority } from '../admission/priority.js';
import { writeBody } from '../http/respond.js';
import { checkName, readObjectAndText } from './object-body.js';
import { render } from './render.js';
import type { RequestScope } from './scope.js';
import { validateFields, writeOptions } from './write-options.js';

export async function handleCreate(scope: RequestScope): Promise<void> {
  const opts = writeOptions(scope, 'CreateOptions');
  const { obj, json } = await readObjectAndText(scope);
  validateFields(scope, obj, json, opts.fieldValidation);
  if (scope.resource.namespaced) await admitNamespaceLifecycle(scope.registry.namespaces, scope.info.namespace);
  if (!obj.metadata?.name && !obj.metadata?.generateName) {
    throw badRequest('name or generateName is required');
  }
  if (scope.resource.group === '' && scope.resource.resource === 'pods') await admitPodPriority(scope.registry, obj);
  const created = await scope.store.create(obj, opts);
  writeBody(scope.res, 201, ...render(scope, created));
}

export async function handleUpdate(scope: RequestScope): Promise<void> {
  const opts = writeOptions(scope, 'UpdateOptions');
  const { obj, json } = await readObjectAndText(scope);
  checkName(scope, obj);
  validateFields(scope, obj, json, opts.fieldValidation);
  const subresource = scope.info.subresource === 'status' ? 'status' : undefined;
  if (scope.resource.namespaced && scope.store.strategy.allowCreateOnUpdate) {
    await admitNamespaceLifecycle(scope.registry.namespaces, scope.info.namespace).catch((err: unknown) => {
      // only creating needs a live namespace; updates of existing objects go on
      return scope.store.get(scope.info.namespace, scope.info.name).then(() => undefined, () => Promise.reject(err));
    });
  }
  const { object, created } = await scope.store.update(scope.info.namespace, scope.info.name, obj, { ...opts, subresource });
  writeBody(scope.res, created ? 201 : 200, ...render(scope, object));
}
