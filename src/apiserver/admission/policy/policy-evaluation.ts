import { CelCostError, CelEvalError } from '../../cel/cel-program.js';
import type { Compiled, CompiledPolicy } from './compiled-policy.js';

/** One failed validation (or a failure the failurePolicy turns into one). */
export interface PolicyViolation {
  message: string;
  /** A Status reason (Invalid when the validation names none). */
  reason: string;
  /** Index of the failed validation, -1 for failures outside validations. */
  expressionIndex: number;
}

export type EvaluationOutcome = { skipped: true } | { skipped: false; violations: PolicyViolation[] };

/** Evaluates one compiled expression; errors come back as upstream words them. */
function run(c: Compiled, vars: Record<string, unknown>): { value: unknown } | { error: string } {
  if ('error' in c) return { error: `compilation failed: ${c.error}` };
  try {
    return { value: c.program.evaluate(vars) };
  } catch (err) {
    if (err instanceof CelEvalError || err instanceof CelCostError) return { error: err.message };
    throw err;
  }
}

/**
 * One policy evaluated for one request and one param (upstream's
 * validator.Validate): match conditions first (any false skips the policy,
 * an error is a failure), then the variables in order (each may use the
 * earlier ones), then every validation. Failures (errors, misconfiguration)
 * become violations under failurePolicy Fail and vanish under Ignore.
 */
export function evaluatePolicy(p: CompiledPolicy, base: Record<string, unknown>): EvaluationOutcome {
  const violations: PolicyViolation[] = [];
  const failure = (message: string) => {
    if (p.failurePolicy === 'Fail') violations.push({ message, reason: 'Invalid', expressionIndex: -1 });
  };
  const vars: Record<string, unknown> = { ...base, variables: {} };
  for (const m of p.matchConditions) {
    const r = run(m.expression, vars);
    if ('error' in r) {
      failure(`failed to evaluate match condition '${m.name}': ${r.error}`);
      return { skipped: false, violations };
    }
    if (r.value !== true) return { skipped: true };
  }
  const variables: Record<string, unknown> = {};
  vars.variables = variables;
  for (const v of p.variables) {
    const r = run(v.expression, vars);
    // a failed variable is absent: expressions that use it fail with `no such key`
    if ('value' in r) variables[v.name] = r.value;
  }
  p.validations.forEach((v, i) => {
    const r = run(v.expression, vars);
    if ('error' in r) {
      failure(`expression '${v.expression.expression}' resulted in error: ${r.error}`);
      return;
    }
    if (r.value === true) return;
    violations.push({ message: messageFor(v, vars), reason: v.reason ?? 'Invalid', expressionIndex: i });
  });
  return { skipped: false, violations };
}

function messageFor(v: CompiledPolicy['validations'][number], vars: Record<string, unknown>): string {
  if (v.messageExpression) {
    const r = run(v.messageExpression, vars);
    if ('value' in r && typeof r.value === 'string' && r.value.trim() !== '' && !r.value.includes('\n')) return r.value.trim();
  }
  if (v.message) return v.message;
  return `failed expression: ${v.expression.expression.trim()}`;
}
