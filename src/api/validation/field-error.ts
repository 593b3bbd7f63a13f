/**
 * A validation failure on one field, as upstream's field.Error. `type` is the
 * cause reason Kubernetes puts in Status.details.causes[].reason.
 */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueNotFound'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'InternalError';

export interface FieldError {
  type: FieldErrorType;
  /** Dotted path with indexes and keys: `spec.containers[0].name`, `metadata.labels[app]`. */
  field: string;
  /** The detail after the summary, e.g. `must be no more than 63 characters`. */
  detail?: string;
  badValue?: unknown;
  /** For FieldValueNotSupported: the allowed values. */
  supported?: string[];
}

const SUMMARY: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueNotFound: 'Not found',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  InternalError: 'Internal error',
};

/** A bad value upstream prints with Go's %#v (e.g. a struct); rendered as given. */
export class GoSyntaxValue {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

function quote(v: unknown): string {
  if (v instanceof GoSyntaxValue) return v.text;
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Renders one error the way upstream's field.Error.Error() does, without the field prefix. */
export function fieldErrorBody(e: FieldError): string {
  const summary = SUMMARY[e.type];
  const showValue = e.type === 'FieldValueInvalid' || e.type === 'FieldValueNotSupported' || e.type === 'FieldValueDuplicate' || e.type === 'FieldValueNotFound' || e.type === 'FieldValueTypeInvalid';
  let body = showValue && e.badValue !== undefined ? `${summary}: ${quote(e.badValue)}` : summary;
  if (e.type === 'FieldValueNotSupported' && e.supported?.length) {
    body += `: supported values: ${e.supported.map((s) => JSON.stringify(s)).join(', ')}`;
  } else if (e.detail) {
    body += `: ${e.detail}`;
  }
  return body;
}

export function fieldErrorMessage(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}
