/**
 * The option structs of the API server's verbs, read from the query string
 * as upstream's parameter codec reads them (field by field, in the Go
 * struct's order, so the first bad field is the one reported), and checked
 * as upstream validates them.
 */
import type { FieldError } from '../../api/validation/field-error.js';
import { invalid } from '../invalid.js';
import { boolParam, int64Param, optionalBoolParam, parseGoBool, stringParam, stringsParam } from './query-values.js';

/** metav1.ListOptions (labelSelector and fieldSelector are parsed where they are matched). */
export interface ListOptions {
  watch: boolean;
  allowWatchBookmarks: boolean;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  timeoutSeconds?: number;
  limit?: number;
  continue?: string;
  sendInitialEvents?: boolean;
}

export function parseListOptions(q: URLSearchParams): ListOptions {
  return {
    watch: boolParam(q, 'watch'),
    allowWatchBookmarks: boolParam(q, 'allowWatchBookmarks'),
    resourceVersion: stringParam(q, 'resourceVersion'),
    resourceVersionMatch: stringParam(q, 'resourceVersionMatch') || undefined,
    timeoutSeconds: int64Param(q, 'timeoutSeconds'),
    limit: int64Param(q, 'limit'),
    continue: stringParam(q, 'continue') || undefined,
    sendInitialEvents: optionalBoolParam(q, 'sendInitialEvents'),
  };
}

const EXACT = 'Exact';
const NOT_OLDER_THAN = 'NotOlderThan';

/**
 * upstream's ValidateListOptions: a 422 on `ListOptions.meta.k8s.io`.
 * `watchList` says whether streaming lists (sendInitialEvents) are served.
 */
export function validateListOptions(o: ListOptions, isWatch: boolean, watchList = true): void {
  const errs: FieldError[] = [];
  const forbid = (field: string, detail: string) => errs.push({ type: 'FieldValueForbidden', field, detail });
  const match = o.resourceVersionMatch;
  if (isWatch) {
    if (o.sendInitialEvents !== undefined) {
      if (match !== NOT_OLDER_THAN) forbid('resourceVersionMatch', `sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}`);
      if (!watchList) forbid('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    }
    if (match) {
      if (o.sendInitialEvents === undefined) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
      if (match !== NOT_OLDER_THAN) errs.push({ type: 'FieldValueNotSupported', field: 'resourceVersionMatch', badValue: match, supported: [NOT_OLDER_THAN] });
      if (o.continue) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
  } else {
    if (match) {
      if (!o.resourceVersion) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
      if (o.continue) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
      if (match !== EXACT && match !== NOT_OLDER_THAN) errs.push({ type: 'FieldValueNotSupported', field: 'resourceVersionMatch', badValue: match, supported: [EXACT, NOT_OLDER_THAN, ''] });
      if (match === EXACT && o.resourceVersion === '0') forbid('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    }
    if (o.sendInitialEvents !== undefined) forbid('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (errs.length) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
}

/** The query form of metav1.DeleteOptions (upstream reads it only when the request has no body). */
export interface DeleteQuery {
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun: string[];
}

export function parseDeleteQuery(q: URLSearchParams): DeleteQuery {
  return {
    gracePeriodSeconds: int64Param(q, 'gracePeriodSeconds'),
    orphanDependents: optionalBoolParam(q, 'orphanDependents'),
    propagationPolicy: stringParam(q, 'propagationPolicy'),
    dryRun: stringsParam(q, 'dryRun'),
  };
}

/** metav1.CreateOptions, UpdateOptions and PatchOptions (force only means something on apply). */
export interface WriteQuery {
  dryRun: string[];
  force?: boolean;
  fieldManager?: string;
  fieldValidation?: string;
}

export function parseWriteQuery(q: URLSearchParams): WriteQuery {
  return {
    dryRun: stringsParam(q, 'dryRun'),
    force: optionalBoolParam(q, 'force'),
    fieldManager: stringParam(q, 'fieldManager'),
    fieldValidation: stringParam(q, 'fieldValidation'),
  };
}

const PRETTY_AGENTS = ['curl', 'Wget', 'Mozilla/5.0'];

/**
 * Whether to indent the JSON answer: `pretty` read with Go's ParseBool
 * (unparseable means no), else yes for curl, Wget and browsers, as upstream.
 */
export function isPrettyPrint(q: URLSearchParams, userAgent: string | undefined): boolean {
  const v = q.get('pretty');
  if (v) return parseGoBool(v) ?? false;
  return !!userAgent && PRETTY_AGENTS.some((a) => userAgent.startsWith(a));
}
