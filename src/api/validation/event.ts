import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';
import type { Event as EventsEvent } from 'kubernetes-types/events/v1.js';
import { invalid, required, validateImmutableField, type ErrorList } from './errors.js';
import { isDNS1123Subdomain, nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta, validateQualifiedName } from './object-meta.js';

/**
 * Both Event APIs are validated as upstream's internal core Event, so field
 * paths use the core names (involvedObject, message, ...) for both.
 */
interface InternalEvent {
  metadata: CoreEvent['metadata'] | undefined;
  involvedObject: { namespace?: string };
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  type?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  action?: string;
  related?: unknown;
  reportingController?: string;
  reportingInstance?: string;
}

function fromCore(e: CoreEvent): InternalEvent {
  return { ...e, metadata: e.metadata, involvedObject: e.involvedObject ?? {}, reportingController: e.reportingComponent };
}

function fromEventsV1(e: EventsEvent): InternalEvent {
  return {
    metadata: e.metadata,
    involvedObject: e.regarding ?? {},
    reason: e.reason,
    message: e.note,
    source: e.deprecatedSource,
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    count: e.deprecatedCount,
    type: e.type,
    eventTime: e.eventTime,
    series: e.series,
    action: e.action,
    related: e.related,
    reportingController: e.reportingController,
    reportingInstance: e.reportingInstance,
  };
}

const LIMIT_128 = 128;
const NOTE_LIMIT = 1024;

function legacyValidate(e: InternalEvent, core: boolean): ErrorList {
  const errs: ErrorList = [];
  const ns = e.metadata?.namespace ?? '';
  const involvedNs = e.involvedObject.namespace ?? '';
  const reportingField = core ? 'reportingComponent' : 'reportingController';
  const mismatch = invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (!e.eventTime) {
    if (involvedNs === '' ? ns !== '' && ns !== 'default' : ns !== involvedNs) errs.push(mismatch);
  } else {
    if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') errs.push(mismatch);
    const rc = e.reportingController ?? '';
    if (!rc) errs.push(required(reportingField));
    errs.push(...validateQualifiedName(rc, reportingField));
    const ri = e.reportingInstance ?? '';
    if (!ri) errs.push(required('reportingInstance'));
    if (ri.length > LIMIT_128) errs.push(invalid('reportingInstance', '', `can have at most ${LIMIT_128} characters`));
    if (!e.action) errs.push(required('action'));
    if ((e.action ?? '').length > LIMIT_128) errs.push(invalid('action', '', `can have at most ${LIMIT_128} characters`));
    if (!e.reason) errs.push(required('reason'));
    if ((e.reason ?? '').length > LIMIT_128) errs.push(invalid('reason', '', `can have at most ${LIMIT_128} characters`));
    if ((e.message ?? '').length > NOTE_LIMIT) errs.push(invalid('message', '', `can have at most ${NOTE_LIMIT} characters`));
  }
  for (const m of isDNS1123Subdomain(ns)) errs.push(invalid('namespace', ns, m));
  return errs;
}

function validateSeries(e: InternalEvent): ErrorList {
  if (!e.series) return [];
  const errs: ErrorList = [];
  if ((e.series.count ?? 0) < 2) errs.push(invalid('series.count', '', 'should be at least 2'));
  if (!e.series.lastObservedTime) errs.push(required('series.lastObservedTime'));
  return errs;
}

/** core/v1 Events only get the lenient legacy checks, as upstream keeps for compatibility. */
export function validateCoreEvent(e: CoreEvent): ErrorList {
  const errs = legacyValidate(fromCore(e), true);
  if (!e.metadata?.name) errs.push(required('metadata.name', 'name or generateName is required'));
  return errs;
}

export function validateEventsEvent(ev: EventsEvent): ErrorList {
  const e = fromEventsV1(ev);
  const errs = legacyValidate(e, false);
  errs.push(...validateObjectMeta(e.metadata, true, nameIsDNSSubdomain));
  errs.push(...validateSeries(e));
  if (!e.eventTime) errs.push(required('eventTime'));
  if (e.type !== 'Normal' && e.type !== 'Warning') errs.push(invalid('type', '', `has invalid value: ${e.type ?? ''}`));
  if (e.firstTimestamp) errs.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (e.lastTimestamp) errs.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if (e.count) errs.push(invalid('count', '', 'needs to be unset'));
  if (e.source?.component || e.source?.host) errs.push(invalid('source', '', 'needs to be unset'));
  return errs;
}

export function validateEventsEventUpdate(ev: EventsEvent, oldEv: EventsEvent): ErrorList {
  const e = fromEventsV1(ev);
  const o = fromEventsV1(oldEv);
  const errs: ErrorList = [];
  const fields = ['involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type', 'action', 'related', 'reportingController', 'reportingInstance', 'eventTime'] as const;
  for (const f of fields) errs.push(...validateImmutableField(e[f], o[f], f));
  return errs;
}
