import type { ASTNode, Environment } from '@marcbachmann/cel-js';
import { celEnvironment, type CelVariables } from './cel-environment.js';

/**
 * The cost budget of one evaluation, as upstream's per-call limit. The
 * evaluator has no runtime cost tracking, so the cost is bounded up front:
 * (AST nodes) × (elements in the input + 1) ^ (nesting depth of
 * comprehensions: all, exists, exists_one, map, filter). An expression
 * without comprehensions always fits; one that walks a list inside a list
 * of a large object does not.
 */
export const PER_CALL_COST_LIMIT = 1_000_000;

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** A compile failure, with upstream's (cel-go's) layout: `ERROR: <input>:1:6: …` and the source line. */
export class CelCompileError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'CelCompileError';
  }
}

/** The budget ran out: upstream's `operation cancelled: actual cost limit exceeded`. */
export class CelCostError extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
    this.name = 'CelCostError';
  }
}

/** An evaluation failure (no such key, no such overload, division by zero, …). */
export class CelEvalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CelEvalError';
  }
}

export interface CelProgram {
  readonly expression: string;
  /** Variables the expression refers to (e.g. whether a rule is a transition rule). */
  readonly references: ReadonlySet<string>;
  /** Evaluates with the given variables; `size` is the number of elements of the input, for the cost bound. */
  evaluate(vars: Record<string, unknown>, size?: number): unknown;
}

type ResultType = 'bool' | 'string' | 'dyn';

/**
 * Parses and type-checks an expression once; the program evaluates many
 * times. `want` is the type the result must have (rules are bool, message
 * expressions string), as upstream checks it at compile time.
 */
export function compileCel(expression: string, variables: CelVariables, want: ResultType = 'dyn'): CelProgram {
  const env: Environment = celEnvironment(variables);
  if (expression.trim() === '') throw new CelCompileError('ERROR: <input>:1:1: Syntax error: mismatched input \'<EOF>\'');
  let parsed;
  try {
    parsed = env.parse(expression);
  } catch (err) {
    throw new CelCompileError(formatError(expression, err));
  }
  const checked = parsed.check();
  if (!checked.valid) throw new CelCompileError(formatError(expression, checked.error));
  if (want !== 'dyn' && checked.type !== want && checked.type !== 'dyn') {
    throw new CelCompileError(want === 'bool' ? 'cel expression must evaluate to a bool' : 'must evaluate to string');
  }
  const shape = measure(parsed.ast);
  const program = parsed;
  return {
    expression,
    references: shape.ids,
    evaluate(vars, size = 0) {
      if (shape.depth > 0 && shape.nodes * (size + 1) ** shape.depth > PER_CALL_COST_LIMIT) throw new CelCostError();
      try {
        return program(vars);
      } catch (err) {
        const text = summary(err);
        // cel-go's runtime errors start lower case (`no such key: x`)
        throw new CelEvalError(/^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text);
      }
    },
  };
}

function summary(err: unknown): string {
  const e = err as { summary?: string; message?: string };
  return e.summary ?? e.message ?? String(err);
}

/** `ERROR: <input>:L:C: summary` then ` | line` and ` | ...^`, as cel-go prints it. */
function formatError(expression: string, err: unknown): string {
  const e = err as { summary?: string; message?: string; node?: { pos?: number }; range?: { start?: number } };
  const pos = e.node?.pos ?? e.range?.start ?? 0;
  const before = expression.slice(0, pos);
  const line = before.split('\n').length;
  const col = pos - (before.lastIndexOf('\n') + 1);
  const text = expression.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${summary(err)}\n | ${text}\n | ${'.'.repeat(col)}^`;
}

interface Shape {
  nodes: number;
  depth: number;
  ids: Set<string>;
}

function measure(ast: ASTNode): Shape {
  const shape: Shape = { nodes: 0, depth: 0, ids: new Set() };
  const visit = (n: unknown, depth: number): void => {
    if (Array.isArray(n)) {
      for (const x of n) visit(x, depth);
      return;
    }
    if (typeof n !== 'object' || n === null || !('op' in n)) return;
    const node = n as { op: string; args: unknown };
    shape.nodes++;
    if (node.op === 'id' && typeof node.args === 'string') shape.ids.add(node.args);
    const loop = node.op === 'rcall' && Array.isArray(node.args) && COMPREHENSIONS.has(node.args[0] as string) ? 1 : 0;
    shape.depth = Math.max(shape.depth, depth + loop);
    visit(node.args, depth + loop);
  };
  visit(ast, 0);
  return shape;
}
