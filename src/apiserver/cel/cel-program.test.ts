import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CelCompileError, CelCostError, CelEvalError, compileCel } from './cel-program.js';
import { toCel } from './cel-value.js';

describe('compileCel', () => {
  it('compiles once and evaluates many times with macros, has() and optionals', () => {
    const p = compileCel('has(self.spec) && self.spec.items.all(i, i > 0) && self.spec.items.exists_one(i, i == 2)', { self: 'dyn' }, 'bool');
    assert.equal(p.evaluate({ self: toCel({ spec: { items: [1, 2, 3] } }).value }), true);
    assert.equal(p.evaluate({ self: toCel({ spec: { items: [0, 2] } }).value }), false);
    const m = compileCel('self.map(x, x * 2).filter(x, x > 2)', { self: 'dyn' });
    assert.deepEqual(m.evaluate({ self: [1n, 2n, 3n] }), [4n, 6n]);
    const o = compileCel('!oldSelf.hasValue() || oldSelf.value() == self', { self: 'dyn', oldSelf: 'optional<dyn>' }, 'bool');
    assert.equal(o.references.has('oldSelf'), true);
  });

  it('integers from JSON are CEL ints, so int arithmetic type-checks', () => {
    const p = compileCel('self.replicas + 1 <= 4 && self.ratio < 1.0', { self: 'dyn' }, 'bool');
    const v = toCel({ replicas: 3, ratio: 0.5 }, { type: 'object', properties: { replicas: { type: 'integer' }, ratio: { type: 'number' } } });
    assert.equal(p.evaluate({ self: v.value }), true);
  });

  it('rejects syntax errors, unknown names and functions, and wrong result types', () => {
    assert.throws(() => compileCel('self.a +', { self: 'dyn' }), (e: unknown) => e instanceof CelCompileError && /^ERROR: <input>:1:\d+: /.test(e.detail));
    assert.throws(() => compileCel('foo.bar', { self: 'dyn' }), (e: unknown) => e instanceof CelCompileError && /Unknown variable: foo/.test(e.detail) && e.detail.includes(' | foo.bar'));
    assert.throws(() => compileCel('self.x.nope()', { self: 'dyn' }), CelCompileError);
    assert.throws(() => compileCel("'a'", { self: 'dyn' }, 'bool'), /must evaluate to a bool/);
  });

  it('reports evaluation errors as values to render', () => {
    const p = compileCel('self.missing > 0', { self: 'dyn' }, 'bool');
    assert.throws(() => p.evaluate({ self: {} }), (e: unknown) => e instanceof CelEvalError && /no such key: missing/i.test(e.message));
  });

  it('bounds the cost of nested comprehensions by the input size', () => {
    const p = compileCel('self.all(a, self.all(b, a != b || a == b))', { self: 'dyn' }, 'bool');
    const small = toCel([1, 2, 3]);
    assert.equal(p.evaluate({ self: small.value }, small.size), true);
    const big = toCel(Array.from({ length: 2000 }, (_, i) => i));
    assert.throws(() => p.evaluate({ self: big.value }, big.size), CelCostError);
    const flat = compileCel('size(self) > 0', { self: 'dyn' }, 'bool');
    assert.equal(flat.evaluate({ self: big.value }, big.size), true);
  });
});
