import type { APIService } from '../../api/types/apiregistration/v1.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './columns.js';
import { column, convertor } from './table-convertor.js';

/** kube-aggregator's printer: name, `namespace/name` of the Service or Local, the Available condition (with its reason when not True), age. */
export const apiServiceTable = convertor<APIService>(
  [NAME_COLUMN, column('Service', 'string', 'The reference to the service that hosts this API endpoint.'), column('Available', 'string', 'Whether this service is available.'), AGE_COLUMN],
  (s, now) => {
    const svc = s.spec?.service;
    const available = (s.status?.conditions ?? []).find((c) => c.type === 'Available');
    const availability = !available ? 'Unknown' : available.status === 'True' ? 'True' : `${available.status} (${available.reason ?? ''})`;
    return [s.metadata?.name ?? '', svc ? `${svc.namespace ?? ''}/${svc.name ?? ''}` : 'Local', availability, translateTimestampSince(s.metadata?.creationTimestamp, now)];
  },
);
