import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { CelCompileError, compileCel, type CelProgram } from '../../cel/cel-program.js';

/** The CEL variables every policy expression sees (`authorizer` is not offered). */
export const POLICY_VARIABLES = {
  object: 'dyn',
  oldObject: 'dyn',
  request: 'dyn',
  params: 'dyn',
  namespaceObject: 'dyn',
  variables: 'dyn',
} as const;

/** An expression that compiled, or the compile error to report when it runs (as upstream does). */
export type Compiled = { program: CelProgram; expression: string } | { error: string; expression: string };

export interface CompiledValidation {
  readonly expression: Compiled;
  readonly message?: string;
  readonly messageExpression?: Compiled;
  readonly reason?: string;
}

export interface CompiledPolicy {
  readonly policy: ValidatingAdmissionPolicy;
  readonly matchConditions: readonly { name: string; expression: Compiled }[];
  readonly variables: readonly { name: string; expression: Compiled }[];
  readonly validations: readonly CompiledValidation[];
  readonly failurePolicy: 'Fail' | 'Ignore';
}

export function compileExpression(expression: string, want: 'bool' | 'string' | 'dyn'): Compiled {
  try {
    return { program: compileCel(expression, POLICY_VARIABLES, want), expression };
  } catch (err) {
    if (err instanceof CelCompileError) return { error: err.detail, expression };
    throw err;
  }
}

/** Compiles every expression of a policy once (per resourceVersion, by the policy cache). */
export function compilePolicy(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = policy.spec ?? {};
  return {
    policy,
    matchConditions: (spec.matchConditions ?? []).map((m) => ({ name: m.name, expression: compileExpression(m.expression, 'bool') })),
    variables: (spec.variables ?? []).map((v) => ({ name: v.name, expression: compileExpression(v.expression, 'dyn') })),
    validations: (spec.validations ?? []).map((v) => ({
      expression: compileExpression(v.expression, 'bool'),
      ...(v.message ? { message: v.message } : {}),
      ...(v.messageExpression ? { messageExpression: compileExpression(v.messageExpression, 'string') } : {}),
      ...(v.reason ? { reason: v.reason } : {}),
    })),
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
  };
}
