/**
 * ApiError is the one error type that crosses the API boundary. It carries the
 * HTTP code, the Kubernetes StatusReason and details, and renders as a
 * metav1.Status. Storage and codec errors are translated into it in one place.
 */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'Timeout'
  | 'ServerTimeout'
  | 'ServiceUnavailable'
  | 'InternalError'
  | 'Unknown';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** Identifies a resource in error messages, e.g. `deployments.apps "web"`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): Status {
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason === 'Unknown' ? undefined : this.reason,
      // Go's field order: details before code
      details: this.details ? detailsInGoOrder(this.details) : undefined,
      code: this.code,
    };
    if (!status.details) delete status.details;
    if (!status.reason) delete status.reason;
    return status;
  }

  static is(err: unknown, reason?: StatusReason): err is ApiError {
    return err instanceof ApiError && (reason === undefined || err.reason === reason);
  }
}

function detailsInGoOrder(d: StatusDetails): StatusDetails {
  const { name, group, kind, uid, causes, retryAfterSeconds } = d;
  const out: StatusDetails = {};
  if (name) out.name = name;
  if (group) out.group = group;
  if (kind) out.kind = kind;
  if (uid) out.uid = uid;
  if (causes?.length) out.causes = causes.map((c) => ({ ...(c.reason ? { reason: c.reason } : {}), ...(c.message ? { message: c.message } : {}), ...(c.field ? { field: c.field } : {}) }));
  if (retryAfterSeconds) out.retryAfterSeconds = retryAfterSeconds;
  return out;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function details(gr: GroupResource, name: string): StatusDetails {
  return { name, group: gr.group || undefined, kind: gr.resource };
}

export function notFound(gr: GroupResource, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, details(gr, name));
}

export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, details(gr, name));
}

export function conflict(gr: GroupResource, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`,
    details(gr, name),
  );
}

export const STALE_OBJECT_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function methodNotAllowed(message: string): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function gone(message: string): ApiError {
  return new ApiError(410, 'Gone', message);
}

export function unauthorized(message = 'Unauthorized'): ApiError {
  return new ApiError(401, 'Unauthorized', message);
}

export function forbidden(message: string): ApiError {
  return new ApiError(403, 'Forbidden', message);
}

export function tooLarge(message = 'the request body is too large'): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge', message);
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got ${contentType})`);
}

export function notAcceptable(message: string): ApiError {
  return new ApiError(406, 'NotAcceptable', message);
}

export function internalError(message: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

export function serviceUnavailable(message: string): ApiError {
  return new ApiError(503, 'ServiceUnavailable', message);
}

export function timeout(message: string): ApiError {
  return new ApiError(504, 'Timeout', message);
}
