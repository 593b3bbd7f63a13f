import type { KubeObject } from '../../api/object.js';
import { hasConditions, type TableConvertor, type TableRow } from './table-convertor.js';

export interface BuildTableOptions {
  now: Date;
  /** What each row carries: nothing, a PartialObjectMetadata, or the whole object. */
  includeObject: 'None' | 'Metadata' | 'Object';
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  /** Leave out column definitions, as upstream does for watch events after the first. */
  noHeaders?: boolean;
}

function rowObject(obj: KubeObject, includeObject: 'Metadata' | 'Object'): unknown {
  if (includeObject === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} };
}

/** A `meta.k8s.io/v1` Table for the objects of one resource, all columns included (kubectl hides `priority: 1` ones). */
export function buildTable(convertor: TableConvertor, objs: KubeObject[], opts: BuildTableOptions): KubeObject {
  const rows: TableRow[] = objs.map((obj) => {
    const cells = convertor.cells(obj, opts.now);
    // With includeObject=None the row has no object field at all.
    const row = (opts.includeObject === 'None' ? { cells } : { cells, object: rowObject(obj, opts.includeObject) }) as TableRow;
    const conditions = hasConditions(convertor) ? convertor.conditions(obj) : undefined;
    if (conditions) row.conditions = conditions;
    return row;
  });
  const metadata: Record<string, unknown> = {};
  if (opts.resourceVersion) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue) metadata.continue = opts.continue;
  if (opts.remainingItemCount !== undefined && opts.remainingItemCount !== null) metadata.remainingItemCount = opts.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: opts.noHeaders ? [] : convertor.columns,
    rows,
  };
}
