import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';
import { Quantity } from '../../../machinery/quantity.js';

const NANO = 1_000_000_000n;
const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);

/**
 * Kubernetes' quantity library (library/quantity.go): `quantity(s)`,
 * `isQuantity(s)` and the Quantity methods, over the machinery's exact
 * Quantity (amounts in nano units, so comparisons never round).
 */
export function registerQuantity(env: Environment): void {
  env
    .registerType('Quantity', Quantity)
    .registerFunction('quantity(string): Quantity', (s: string) => parse(s))
    .registerFunction('isQuantity(string): bool', (s: string) => {
      try {
        Quantity.parse(s);
        return true;
      } catch {
        return false;
      }
    })
    .registerFunction('Quantity.sign(): int', (q: Quantity) => BigInt(q.sign()))
    .registerFunction('Quantity.isGreaterThan(Quantity): bool', (a: Quantity, b: Quantity) => a.cmp(b) > 0)
    .registerFunction('Quantity.isLessThan(Quantity): bool', (a: Quantity, b: Quantity) => a.cmp(b) < 0)
    .registerFunction('Quantity.compareTo(Quantity): int', (a: Quantity, b: Quantity) => BigInt(a.cmp(b)))
    .registerFunction('Quantity.add(Quantity): Quantity', (a: Quantity, b: Quantity) => a.add(b))
    .registerFunction('Quantity.add(int): Quantity', (a: Quantity, b: bigint) => a.add(Quantity.fromValue(b)))
    .registerFunction('Quantity.sub(Quantity): Quantity', (a: Quantity, b: Quantity) => a.sub(b))
    .registerFunction('Quantity.sub(int): Quantity', (a: Quantity, b: bigint) => a.sub(Quantity.fromValue(b)))
    .registerFunction('Quantity.isInteger(): bool', (q: Quantity) => isInteger(q))
    .registerFunction('Quantity.asInteger(): int', (q: Quantity) => {
      if (!isInteger(q)) throw new EvaluationError('cannot convert value to integer');
      return q.nanos / NANO;
    })
    .registerFunction('Quantity.asApproximateFloat(): double', (q: Quantity) => q.toNumber())
    .registerOperator('Quantity == Quantity', (a: Quantity, b: Quantity) => a.equal(b));
}

function parse(s: string): Quantity {
  try {
    return Quantity.parse(s);
  } catch (err) {
    throw new EvaluationError((err as Error).message);
  }
}

function isInteger(q: Quantity): boolean {
  if (q.nanos % NANO !== 0n) return false;
  const v = q.nanos / NANO;
  return v >= MIN_INT64 && v <= MAX_INT64;
}
