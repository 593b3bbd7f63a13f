import type { RequestInfo } from '../request-info.js';

const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/**
 * Requests that may legitimately stay open for minutes (upstream's
 * BasicLongRunningRequestCheck: verbs watch and proxy; subresources attach,
 * exec, proxy, log and portforward). They are not counted by the in-flight
 * limits and get no request timeout.
 */
export function isLongRunning(info: RequestInfo): boolean {
  return info.isResourceRequest && (LONG_RUNNING_VERBS.has(info.verb) || LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}
