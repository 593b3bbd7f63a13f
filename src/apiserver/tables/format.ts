import type { Container } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { QuantityParseError, parseQuantity } from '../../machinery/quantity.js';

/** Small cell formatters shared by several printers. */

/** Container names and images, each comma-joined, for the wide columns. */
export function containerCells(containers: Container[] | undefined): [names: string, images: string] {
  const list = containers ?? [];
  return [list.map((c) => c.name).join(','), list.map((c) => c.image ?? '').join(',')];
}

/** The first `max` items, then ` + N more...`; `<unset>` when there are none. */
export function listWithMore(items: string[], max = 3): string {
  const shown = items.slice(0, max).join(',');
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown === '' ? '<unset>' : shown;
}

/** `True`/`False`, or `<unset>` for a missing optional boolean. */
export function boolPtr(v: boolean | undefined | null): string {
  if (v === undefined || v === null) return '<unset>';
  return v ? 'True' : 'False';
}

/** IntOrString as upstream prints it: the number, or the string (e.g. `50%`). */
export function intOrString(v: number | string): string {
  return typeof v === 'number' ? String(v) : v;
}

/** A quantity in canonical form (`1000m` prints `1`); unset reads as `0`, like a zero Quantity. */
export function quantity(v: unknown): string {
  const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '';
  if (text === '') return '0';
  try {
    return parseQuantity(text).toString();
  } catch (err) {
    // Validation keeps bad quantities out of storage; show one as written rather than fail the table.
    if (err instanceof QuantityParseError) return text;
    throw err;
  }
}

/** `labels.FormatLabels`: `a=1,b=2` with keys sorted, or `<none>` for no labels. */
export function formatLabels(labels: Record<string, string> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${labels?.[k] ?? ''}`).join(',');
}

/** The owner reference marked as the controller, like `metav1.GetControllerOf`. */
export function controllerOf(refs: OwnerReference[] | undefined): OwnerReference | undefined {
  return refs?.find((r) => r.controller === true);
}

/** Persistent volume access modes as `RWO,ROX,RWX,RWOP`, in that fixed order. */
export function accessModes(modes: string[] | undefined): string {
  const set = new Set(modes ?? []);
  const out: string[] = [];
  if (set.has('ReadWriteOnce')) out.push('RWO');
  if (set.has('ReadOnlyMany')) out.push('ROX');
  if (set.has('ReadWriteMany')) out.push('RWX');
  if (set.has('ReadWriteOncePod')) out.push('RWOP');
  return out.join(',');
}
