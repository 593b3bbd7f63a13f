import type { ReviewHandler } from '../reviews/review-handler.js';
import { writeBody } from '../http/respond.js';
import { readObject, readObjectAndText } from './object-body.js';
import { render } from './render.js';
import type { RequestScope } from './scope.js';
import { validateFields, writeOptions } from './write-options.js';
import { admissionAttributes } from './write-admission.js';

const TOKEN_REQUEST_KIND = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };

/** POST of a review: decode and type-check it, answer it, store nothing (201 as upstream). */
export async function handleReview(scope: RequestScope, review: ReviewHandler): Promise<void> {
  const opts = writeOptions(scope, 'CreateOptions');
  if (scope.info.subresource === 'token') {
    // a TokenRequest posted to serviceaccounts/<name>/token
    const obj = await readObject(scope, 'TokenRequest', 'authentication.k8s.io/v1');
    // as upstream's TokenRequest REST create: admission sees the request (NodeRestriction binds node tokens to their pods)
    const attrs = admissionAttributes(scope, 'CREATE', obj, undefined, opts.dryRun, TOKEN_REQUEST_KIND);
    await scope.admission.admit(attrs);
    await scope.admission.validate(attrs);
    writeBody(scope.res, 201, ...render(scope, await review(obj, { user: scope.user, namespace: scope.info.namespace, name: scope.info.name })));
    return;
  }
  const { obj, json } = await readObjectAndText(scope);
  validateFields(scope, obj, json, opts.fieldValidation);
  const answered = await review(obj, { user: scope.user, namespace: scope.info.namespace, name: scope.info.name });
  writeBody(scope.res, 201, ...render(scope, answered));
}
