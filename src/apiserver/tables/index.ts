/**
 * Server-side printing: the `meta.k8s.io/v1` Table that `kubectl get` asks
 * for, with the columns and cells of upstream's Kubernetes 1.32 printers.
 */
export type { TableColumnDefinition, TableRow, TableRowCondition, TableConvertor } from './table-convertor.js';
export { tableConvertorFor } from './registry.js';
export { buildTable, type BuildTableOptions } from './table.js';
export { humanDuration, translateTimestampSince } from './age.js';
