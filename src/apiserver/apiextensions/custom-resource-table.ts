import type { CustomResourceColumnDefinition } from 'kubernetes-types/apiextensions/v1.js';
import { translateTimestampSince } from '../tables/age.js';
import { NAME_COLUMN } from '../tables/columns.js';
import { column, type TableConvertor } from '../tables/table-convertor.js';
import { jsonPathFind } from './simple-json-path.js';

/** Without printer columns a custom resource shows its age, as upstream. */
const DEFAULT_COLUMNS: CustomResourceColumnDefinition[] = [
  {
    name: 'Age',
    type: 'date',
    jsonPath: '.metadata.creationTimestamp',
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  },
];

/** The table of a custom resource: Name plus its version's additionalPrinterColumns. */
export function customResourceTable(printerColumns: CustomResourceColumnDefinition[] | undefined): TableConvertor {
  const cols = printerColumns?.length ? printerColumns : DEFAULT_COLUMNS;
  return {
    columns: [NAME_COLUMN, ...cols.map((c) => column(c.name, c.type, c.description ?? '', { priority: c.priority ?? 0, format: c.format ?? '' }))],
    cells(obj, now) {
      return [obj.metadata?.name ?? '', ...cols.map((c) => cell(c, jsonPathFind(obj, c.jsonPath)[0], now))];
    },
  };
}

function cell(c: CustomResourceColumnDefinition, value: unknown, now: Date): unknown {
  if (value === undefined || value === null) return null;
  switch (c.type) {
    case 'date':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? translateTimestampSince(value, now) : value;
    case 'integer':
    case 'number':
    case 'boolean':
      return value;
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}
