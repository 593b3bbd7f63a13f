import type { KubeObject } from '../../api/object.js';

/** One column of a `meta.k8s.io/v1` Table, as `kubectl get` reads it. */
export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  /** 0 for the default view, 1 for columns only shown with `-o wide`. */
  priority: number;
}

/** Why a row is special, e.g. a pod that has completed. */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRow {
  cells: unknown[];
  /** Set by the server according to `includeObject`. */
  object: unknown;
  conditions?: TableRowCondition[];
}

/** Turns objects of one resource into table rows with fixed columns. */
export interface TableConvertor {
  columns: TableColumnDefinition[];
  /** One row's cells for the object; `now` for ages. */
  cells(obj: KubeObject, now: Date): unknown[];
}

/** A convertor that also marks some rows (upstream does this for finished pods). */
export interface ConditionedTableConvertor extends TableConvertor {
  conditions(obj: KubeObject): TableRowCondition[] | undefined;
}

export function hasConditions(c: TableConvertor): c is ConditionedTableConvertor {
  return typeof (c as Partial<ConditionedTableConvertor>).conditions === 'function';
}

/** Builds a column definition; most columns have no format and priority 0. */
export function column(name: string, type: string, description: string, opts: { priority?: number; format?: string } = {}): TableColumnDefinition {
  return { name, type, format: opts.format ?? '', description, priority: opts.priority ?? 0 };
}

/**
 * Builds a convertor from columns and a typed cell function. The cast is the
 * one place where an untyped stored object is read as its Kubernetes type.
 */
export function convertor<T>(columns: TableColumnDefinition[], cells: (obj: T, now: Date) => unknown[]): TableConvertor {
  return { columns, cells: (obj, now) => cells(obj as unknown as T, now) };
}
