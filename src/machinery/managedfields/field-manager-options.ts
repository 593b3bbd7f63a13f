/**
 * The `fieldManager` and `force` request options: who a write is recorded
 * as, and the checks upstream applies to them (ValidatePatchOptions,
 * ValidateFieldManager), worded as upstream words them.
 */
import type { FieldError } from '../../api/validation/field-error.js';
import { fieldErrorBody, fieldErrorMessage } from '../../api/validation/field-error.js';
import { ApiError } from '../api-error.js';

export const FIELD_MANAGER_MAX_LENGTH = 128;

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const NOT_PRINTABLE = /[\p{C}\p{Z}]/u;

/**
 * The manager of a write that names none: the User-Agent up to its first
 * `/`, printable characters only, at most 128 bytes (upstream
 * prefixFromUserAgent), e.g. `kubectl/v1.32.0 (linux/amd64)` → `kubectl`.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]) {
    if (ch !== ' ' && NOT_PRINTABLE.test(ch)) continue;
    if (Buffer.byteLength(out) >= FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out;
}

/** The request's fieldManager if given, else the one derived from its User-Agent. */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  return fieldManager ? fieldManager : managerFromUserAgent(userAgent);
}

export interface FieldManagerOptions {
  /** Which options type the request carries, for the error's kind. */
  optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';
  fieldManager?: string;
  /** Whether the `force` query parameter was given at all. */
  forceGiven?: boolean;
  /** Whether the request is an apply patch (application/apply-patch+yaml). */
  isApply?: boolean;
}

/** The 422 upstream returns for bad fieldManager/force options, or undefined when they are fine. */
export function validateFieldManagerOptions(o: FieldManagerOptions): ApiError | undefined {
  const errors: FieldError[] = [];
  if (o.optionsKind === 'PatchOptions') {
    if (!o.isApply && o.forceGiven) errors.push({ type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' });
    if (o.isApply && !o.fieldManager) errors.push({ type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' });
  }
  const fm = o.fieldManager ?? '';
  if (Buffer.byteLength(fm) > FIELD_MANAGER_MAX_LENGTH) {
    errors.push({ type: 'FieldValueTooLong', field: 'fieldManager', detail: `may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes` });
  }
  let offset = 0;
  for (const ch of fm) {
    if (ch !== ' ' && NOT_PRINTABLE.test(ch)) {
      const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      errors.push({ type: 'FieldValueInvalid', field: 'fieldManager', badValue: fm, detail: `invalid character ${code} (at position ${offset})` });
    }
    offset += Buffer.byteLength(ch);
  }
  if (errors.length === 0) return undefined;
  const list = errors.map(fieldErrorMessage);
  const joined = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${o.optionsKind}.meta.k8s.io "" is invalid: ${joined}`, {
    group: 'meta.k8s.io',
    kind: o.optionsKind,
    causes: errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
  });
}
