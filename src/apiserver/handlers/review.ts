import type { ReviewHandler } from '../reviews/review-handler.js';
import { writeBody } from '../http/respond.js';
import { readObject, readObjectAndText } from './object-body.js';
import { render } from './render.js';
import type { RequestScope } from './scope.js';
import { validateFields, writeOptions } from './write-options.js';

/** POST of a review: decode and type-check it, answer it, store nothing (201 as upstream). */
export async function handleReview(scope: RequestScope, review: ReviewHandler): Promise<void> {
  const opts = writeOptions(scope, 'CreateOptions');
  if (scope.info.subresource === 'token') {
    // a TokenRequest posted to serviceaccounts/<name>/token
    const obj = await readObject(scope, 'TokenRequest', 'authentication.k8s.io/v1');
    writeBody(scope.res, 201, ...render(scope, await review(obj, { user: scope.user, namespace: scope.info.namespace, name: scope.info.name })));
    return;
  }
  const { obj, json } = await readObjectAndText(scope);
  validateFields(scope, obj, json, opts.fieldValidation);
  const answered = await review(obj, { user: scope.user, namespace: scope.info.namespace, name: scope.info.name });
  writeBody(scope.res, 201, ...render(scope, answered));
}
