import { ApiError, type StatusReason } from '../../machinery/api-error.js';

function matches(err: unknown, reason: StatusReason, code: number): boolean {
  if (!(err instanceof ApiError)) return false;
  return err.reason === reason || (err.reason === 'Unknown' && err.code === code);
}

export function isNotFound(err: unknown): boolean {
  return matches(err, 'NotFound', 404);
}

export function isAlreadyExists(err: unknown): boolean {
  return err instanceof ApiError && err.reason === 'AlreadyExists';
}

export function isConflict(err: unknown): boolean {
  return matches(err, 'Conflict', 409);
}

/** 410: the requested resourceVersion is older than the server keeps (Gone or Expired). */
export function isGone(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 410 || err.reason === 'Gone' || err.reason === 'Expired');
}

/** Same as isGone: a list continue token or watch resourceVersion has expired; relist. */
export const isExpired = isGone;

export function isInvalid(err: unknown): boolean {
  return matches(err, 'Invalid', 422);
}

export function isTooManyRequests(err: unknown): boolean {
  return matches(err, 'TooManyRequests', 429);
}

export function isForbidden(err: unknown): boolean {
  return matches(err, 'Forbidden', 403);
}

export function isUnauthorized(err: unknown): boolean {
  return matches(err, 'Unauthorized', 401);
}
