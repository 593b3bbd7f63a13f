import type { ValidationRule } from 'kubernetes-types/apiextensions/v1.js';
import { child, index, invalid, key, notSupported, required, type ErrorList } from '../../../api/validation/errors.js';
import { GoSyntaxValue } from '../../../api/validation/field-error.js';
import { CelCompileError, compileCel, type CelProgram } from '../../cel/cel-program.js';
import { additionalSchema, itemsSchema, type Schema } from './json-schema.js';

export const RULE_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** One x-kubernetes-validations entry, compiled. */
export interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program: CelProgram;
  readonly message?: CelProgram;
  /** Uses oldSelf: evaluated only on update with a correlated old value (or always with optionalOldSelf). */
  readonly transition: boolean;
  readonly optionalOldSelf: boolean;
  /** `fieldPath` as a field-path suffix (`.spec.x` → `spec.x`). */
  readonly fieldPath: string;
}

/** The schema tree cut down to the nodes that hold rules or lead to them. */
export interface RuleNode {
  readonly schema: Schema;
  readonly rules: readonly CompiledRule[];
  readonly properties?: ReadonlyMap<string, RuleNode>;
  readonly additional?: RuleNode;
  readonly items?: RuleNode;
}

/**
 * Compiles every x-kubernetes-validations rule of a structural schema into
 * a RuleNode tree (undefined when the schema has none). Compile failures go
 * to `errs` with upstream's paths and texts when given (CRD validation);
 * when serving, the CRD was already validated and such rules are skipped.
 */
export function compileSchemaRules(s: Schema, path: string, errs?: ErrorList): RuleNode | undefined {
  const rules = (s['x-kubernetes-validations'] ?? []).flatMap((r, i) => compileRule(r, s, index(child(path, 'x-kubernetes-validations'), i), errs));
  const properties = new Map<string, RuleNode>();
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    const n = compileSchemaRules(v, key(child(path, 'properties'), k), errs);
    if (n) properties.set(k, n);
  }
  const ap = additionalSchema(s);
  const additional = ap ? compileSchemaRules(ap, child(path, 'additionalProperties'), errs) : undefined;
  const it = itemsSchema(s);
  const items = it ? compileSchemaRules(it, child(path, 'items'), errs) : undefined;
  if (rules.length === 0 && properties.size === 0 && !additional && !items) return undefined;
  return { schema: s, rules, ...(properties.size ? { properties } : {}), ...(additional ? { additional } : {}), ...(items ? { items } : {}) };
}

function compileRule(r: ValidationRule, s: Schema, path: string, errs: ErrorList | undefined): CompiledRule[] {
  const optionalOldSelf = r.optionalOldSelf === true;
  const vars = { self: 'dyn', oldSelf: optionalOldSelf ? 'optional<dyn>' : 'dyn' };
  const bad = (f: string, detail: string) => errs?.push(invalid(child(path, f), goRule(r), detail));
  const before = errs?.length ?? 0;
  if (!r.rule?.trim()) errs?.push(required(child(path, 'rule'), 'rule is not specified'));
  if (r.reason !== undefined && !RULE_REASONS.includes(r.reason)) errs?.push(notSupported(child(path, 'reason'), r.reason, RULE_REASONS));
  if (r.message !== undefined && /[\n\r]/.test(r.message)) errs?.push(invalid(child(path, 'message'), r.message, 'message must not contain line breaks'));
  if (r.message !== undefined && r.message.trim() === '' && r.message !== '') errs?.push(invalid(child(path, 'message'), r.message, 'message must be non-empty if specified'));
  const fieldPath = normalizeFieldPath(r.fieldPath, s);
  if (fieldPath instanceof Error) errs?.push(invalid(child(path, 'fieldPath'), r.fieldPath, fieldPath.message));
  let program: CelProgram | undefined;
  let message: CelProgram | undefined;
  if (r.rule?.trim()) {
    try {
      program = compileCel(r.rule, vars, 'bool');
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
      bad('rule', `compilation failed: ${err.detail}`);
    }
  }
  if (r.messageExpression !== undefined) {
    try {
      message = compileCel(r.messageExpression, vars, 'string');
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
      bad('messageExpression', `messageExpression compilation failed: ${err.detail}`);
    }
  }
  if (!program || (errs?.length ?? 0) > before || fieldPath instanceof Error) return [];
  const transition = program.references.has('oldSelf') || (message?.references.has('oldSelf') ?? false);
  return [{ rule: r, program, ...(message ? { message } : {}), transition, optionalOldSelf, fieldPath }];
}

/** `.spec.x['a.b']` → `spec.x[a.b]` after checking it names fields of the schema, as upstream's ValidFieldPath. */
function normalizeFieldPath(fp: string | undefined, s: Schema): string | Error {
  if (!fp) return '';
  const parts: string[] = [];
  let node: Schema | undefined = s;
  const re = /\.([^.[\]]+)|\['((?:[^'\\]|\\.)*)'\]/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < fp.length) {
    re.lastIndex = at;
    m = re.exec(fp);
    if (!m) return new Error('fieldPath must be a valid path: expected [ or . but got: ' + fp.slice(at));
    at = re.lastIndex;
    const name = m[1] ?? (m[2] ?? '').replace(/\\(.)/g, '$1');
    const named: Schema | undefined = node?.properties?.[name];
    if (named) {
      parts.push(parts.length ? `.${name}` : name);
      node = named;
    } else if (node && additionalSchema(node)) {
      parts.push(`[${name}]`);
      node = additionalSchema(node);
    } else return new Error('fieldPath must be a valid path: does not refer to a valid field');
  }
  return parts.join('');
}

/** The rule as upstream prints it in a CRD error (Go's %#v of the internal struct). */
function goRule(r: ValidationRule): GoSyntaxValue {
  const q = (v: string | undefined) => JSON.stringify(v ?? '');
  const reason = r.reason === undefined ? '(*apiextensions.FieldValueErrorReason)(nil)' : `(*apiextensions.FieldValueErrorReason)(${JSON.stringify(r.reason)})`;
  const optional = r.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(${r.optionalOldSelf})`;
  return new GoSyntaxValue(
    `apiextensions.ValidationRule{Rule:${q(r.rule)}, Message:${q(r.message)}, MessageExpression:${q(r.messageExpression)}, Reason:${reason}, FieldPath:${q(r.fieldPath)}, OptionalOldSelf:${optional}}`,
  );
}
