import { fieldErrorBody, fieldErrorMessage, type FieldError } from '../api/validation/field-error.js';
import { ApiError } from './api-error.js';

/** 422 Invalid, with one cause per field error, worded as upstream (`Deployment.apps "web" is invalid: …`). */
export function invalid(target: { group: string; kind: string }, name: string, errors: FieldError[]): ApiError {
  const list = errors.map(fieldErrorMessage);
  const joined = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  const qualified = target.group ? `${target.kind}.${target.group}` : target.kind;
  return new ApiError(422, 'Invalid', `${qualified} "${name}" is invalid: ${joined}`, {
    name,
    group: target.group || undefined,
    kind: target.kind,
    causes: errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
  });
}
