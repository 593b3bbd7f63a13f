import type { Event as CoreEvent, EventSource } from 'kubernetes-types/core/v1.js';
import type { Event as NewEvent } from 'kubernetes-types/events/v1.js';
import { parseTimestamp, translateTimestampSince } from './age.js';
import { NAME_COLUMN, fieldColumn } from './columns.js';
import { convertor, type TableColumnDefinition } from './table-convertor.js';

/**
 * The event table. Upstream serves core and events.k8s.io events from one
 * store and prints both as core events, so events.k8s.io objects are mapped
 * onto the core fields first.
 */

const COLUMNS: TableColumnDefinition[] = [
  fieldColumn('Last Seen', 'string', 'Event.lastTimestamp'),
  fieldColumn('Type', 'string', 'Event.type'),
  fieldColumn('Reason', 'string', 'Event.reason'),
  fieldColumn('Object', 'string', 'Event.involvedObject'),
  fieldColumn('Subobject', 'string', 'ObjectReference.fieldPath', 1),
  fieldColumn('Source', 'string', 'Event.source', 1),
  fieldColumn('Message', 'string', 'Event.message'),
  fieldColumn('First Seen', 'string', 'Event.firstTimestamp', 1),
  fieldColumn('Count', 'string', 'Event.count', 1),
  { ...NAME_COLUMN, priority: 1 },
];

/** `component, host`, falling back to the reporting controller and instance. */
function formatSource(source: EventSource | undefined, controller: string | undefined, instance: string | undefined): string {
  const component = source?.component || controller || '';
  const host = source?.host || instance || '';
  return host ? `${component}, ${host}` : component;
}

function eventCells(ev: CoreEvent, now: Date): unknown[] {
  // Events of the new API only carry eventTime; older ones only the first/last timestamps.
  const hasFirst = parseTimestamp(ev.firstTimestamp) !== undefined;
  const firstSeen = translateTimestampSince(hasFirst ? ev.firstTimestamp : ev.eventTime, now);
  let lastSeen = parseTimestamp(ev.lastTimestamp) !== undefined ? translateTimestampSince(ev.lastTimestamp, now) : firstSeen;
  let count = ev.count ?? 0;
  if (ev.series) {
    lastSeen = translateTimestampSince(ev.series.lastObservedTime, now);
    count = ev.series.count ?? 0;
  } else if (count === 0) {
    // Singleton events of the new API carry no count.
    count = 1;
  }
  const ref = ev.involvedObject;
  const kind = (ref?.kind ?? '').toLowerCase();
  const target = ref?.name ? `${kind}/${ref.name}` : kind;
  return [
    lastSeen,
    ev.type ?? '',
    ev.reason ?? '',
    target,
    ref?.fieldPath ?? '',
    formatSource(ev.source, ev.reportingComponent, ev.reportingInstance),
    (ev.message ?? '').trim(),
    firstSeen,
    count,
    ev.metadata?.name ?? '',
  ];
}

/** The core view of an events.k8s.io/v1 Event, as the API's conversion produces it. */
export function toCoreEvent(ev: NewEvent): CoreEvent {
  return {
    metadata: ev.metadata ?? {},
    involvedObject: ev.regarding ?? {},
    reason: ev.reason,
    message: ev.note,
    source: ev.deprecatedSource,
    firstTimestamp: ev.deprecatedFirstTimestamp,
    lastTimestamp: ev.deprecatedLastTimestamp,
    count: ev.deprecatedCount,
    type: ev.type,
    eventTime: ev.eventTime,
    series: ev.series ? { count: ev.series.count, lastObservedTime: ev.series.lastObservedTime } : undefined,
    action: ev.action,
    related: ev.related,
    reportingComponent: ev.reportingController,
    reportingInstance: ev.reportingInstance,
  };
}

export const eventTable = convertor<CoreEvent>(COLUMNS, eventCells);

export const eventsV1Table = convertor<NewEvent>(COLUMNS, (ev, now) => eventCells(toCoreEvent(ev), now));
