import { badRequest } from '../../machinery/api-error.js';
import { checkName, readObjectAndText } from './object-body.js';
import { writeObject } from './render.js';
import type { RequestScope } from './scope.js';
import { writeAdmission } from './write-admission.js';
import { partialSubresource } from './partial-subresource.js';
import { validateFields, writeOptions } from './write-options.js';

export async function handleCreate(scope: RequestScope): Promise<void> {
  const opts = writeOptions(scope, 'CreateOptions');
  const { obj, json } = await readObjectAndText(scope);
  validateFields(scope, obj, json, opts.fieldValidation);
  if (!obj.metadata?.name && !obj.metadata?.generateName) {
    throw badRequest('name or generateName is required');
  }
  const created = await scope.store.create(obj, { ...opts, admission: writeAdmission(scope, opts.dryRun), trace: scope.trace });
  writeObject(scope, 201, created);
}

export async function handleUpdate(scope: RequestScope): Promise<void> {
  const opts = writeOptions(scope, 'UpdateOptions');
  const { obj, json } = await readObjectAndText(scope);
  checkName(scope, obj);
  validateFields(scope, obj, json, opts.fieldValidation);
  const subresource = partialSubresource(scope.info.subresource);
  const admission = writeAdmission(scope, opts.dryRun);
  const { object, created } = await scope.store.update(scope.info.namespace, scope.info.name, obj, { ...opts, subresource, admission, trace: scope.trace });
  writeObject(scope, created ? 201 : 200, object);
}
