import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';
import { compareCel } from './compare.js';
import { celEquals } from './equality.js';

/**
 * Kubernetes' lists library (k8s.io/apiserver/pkg/cel/library/lists.go):
 * `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf` on lists of
 * comparable values.
 */
export function registerLists(env: Environment): void {
  env
    .registerFunction('list.isSorted(): bool', (l: unknown[]) => l.every((v, i) => i === 0 || compareCel(l[i - 1], v) <= 0))
    .registerFunction('list.sum(): dyn', (l: unknown[]) => sum(l))
    .registerFunction('list.min(): dyn', (l: unknown[]) => extreme(l, 'min', -1))
    .registerFunction('list.max(): dyn', (l: unknown[]) => extreme(l, 'max', 1))
    .registerFunction('list.indexOf(dyn): int', (l: unknown[], v: unknown) => BigInt(l.findIndex((e) => celEquals(e, v))))
    .registerFunction('list.lastIndexOf(dyn): int', (l: unknown[], v: unknown) => BigInt(l.findLastIndex((e) => celEquals(e, v))));
}

function sum(l: unknown[]): unknown {
  if (l.length === 0) return 0n;
  let total = l[0];
  for (const v of l.slice(1)) {
    if (typeof total === 'bigint' && typeof v === 'bigint') total = total + v;
    else if (typeof total === 'number' && typeof v === 'number') total = total + v;
    else if (hasAdd(total)) total = total.add(v);
    else throw new EvaluationError('no such overload: sum() of mixed or non-numeric list');
  }
  return total;
}

function hasAdd(v: unknown): v is { add(o: unknown): unknown } {
  return typeof v === 'object' && v !== null && typeof (v as { add?: unknown }).add === 'function';
}

function extreme(l: unknown[], name: string, sign: 1 | -1): unknown {
  if (l.length === 0) throw new EvaluationError(`${name}(list) argument must not be empty`);
  return l.reduce((best, v) => (compareCel(v, best) * sign > 0 ? v : best));
}
