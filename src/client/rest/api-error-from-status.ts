import { ApiError, type StatusDetails, type StatusReason } from '../../machinery/api-error.js';
import { isObject } from '../../api/object.js';

const KNOWN_REASONS = new Set<string>([
  'BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'AlreadyExists', 'Conflict', 'Gone', 'Expired', 'Invalid',
  'MethodNotAllowed', 'NotAcceptable', 'RequestEntityTooLarge', 'UnsupportedMediaType', 'TooManyRequests', 'Timeout',
  'ServerTimeout', 'ServiceUnavailable', 'InternalError',
]);

/** What client-go assumes when a response carries no Status (e.g. a proxy's HTML). */
function reasonForCode(code: number): StatusReason {
  switch (code) {
    case 400: return 'BadRequest';
    case 401: return 'Unauthorized';
    case 403: return 'Forbidden';
    case 404: return 'NotFound';
    case 405: return 'MethodNotAllowed';
    case 406: return 'NotAcceptable';
    case 409: return 'Conflict';
    case 410: return 'Gone';
    case 413: return 'RequestEntityTooLarge';
    case 415: return 'UnsupportedMediaType';
    case 422: return 'Invalid';
    case 429: return 'TooManyRequests';
    case 500: return 'InternalError';
    case 503: return 'ServiceUnavailable';
    case 504: return 'Timeout';
    default: return 'Unknown';
  }
}

/**
 * Decodes an error answer into the ApiError the server built: from a
 * metav1.Status body when there is one, otherwise from the HTTP code.
 */
export function apiErrorFromStatus(httpCode: number, body: unknown): ApiError {
  if (isObject(body) && body.kind === 'Status') {
    const code = typeof body.code === 'number' && body.code > 0 ? body.code : httpCode;
    const raw = typeof body.reason === 'string' ? body.reason : '';
    const reason = KNOWN_REASONS.has(raw) ? (raw as StatusReason) : reasonForCode(code);
    const message = typeof body.message === 'string' ? body.message : `the server responded with code ${code}`;
    const details = isObject(body.details) ? (body.details as StatusDetails) : undefined;
    return new ApiError(code, reason, message, details);
  }
  const text = typeof body === 'string' && body.length > 0 ? body.slice(0, 512) : `the server responded with code ${httpCode}`;
  return new ApiError(httpCode, reasonForCode(httpCode), text);
}
