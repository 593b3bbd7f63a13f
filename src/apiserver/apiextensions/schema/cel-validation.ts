import { Optional } from '@marcbachmann/cel-js';
import { child, index, key, type ErrorList } from '../../../api/validation/errors.js';
import type { FieldError } from '../../../api/validation/field-error.js';
import { CelCostError, CelEvalError, type CelProgram } from '../../cel/cel-program.js';
import { toCel } from '../../cel/cel-value.js';
import type { CompiledRule, RuleNode } from './cel-rules.js';
import { isObject } from './json-schema.js';

const MAX_MESSAGE_BYTES = 5 * 1024;

/** Stops the walk once the cost budget ran out, as upstream stops running rules. */
class BudgetExhausted extends Error {}

interface Walk {
  errs: ErrorList;
  size: number;
}

/**
 * Runs a custom resource's x-kubernetes-validations rules (upstream's
 * apiserver/schema/cel Validator): each rule with `self` bound to its node's
 * value, transition rules with `oldSelf` bound to the correlated old value
 * (object fields by name, map entries by key, `list-type: map` items by
 * their keys) and skipped when there is none, unless `optionalOldSelf`.
 * Errors use upstream's texts: the message (or messageExpression, or
 * `failed rule: <rule>`) on the node's path, the reason's error type.
 */
export function validateCelRules(tree: RuleNode, obj: unknown, old: unknown, path = ''): ErrorList {
  const now = toCel(obj, tree.schema);
  const before = old === undefined ? undefined : toCel(old, tree.schema).value;
  const walk: Walk = { errs: [], size: now.size };
  try {
    visit(tree, obj, now.value, before, path, walk);
  } catch (err) {
    if (!(err instanceof BudgetExhausted)) throw err;
  }
  return walk.errs;
}

function visit(node: RuleNode, raw: unknown, value: unknown, old: unknown, path: string, walk: Walk): void {
  if (raw === null || raw === undefined) return;
  if (node.rules.length) runRules(node, value, old, path, walk);
  if (isObject(raw) && isObject(value)) {
    const oldObj = isObject(old) ? old : undefined;
    for (const [k, n] of node.properties ?? []) {
      if (k in raw) visit(n, raw[k], value[k], oldObj?.[k], child(path, k), walk);
    }
    if (node.additional) {
      for (const k of Object.keys(raw)) {
        if (!node.properties?.has(k)) visit(node.additional, raw[k], value[k], oldObj?.[k], key(path, k), walk);
      }
    }
  } else if (Array.isArray(raw) && Array.isArray(value) && node.items) {
    const correlate = listCorrelation(node, old);
    raw.forEach((item, i) => visit(node.items!, item, value[i], correlate(value[i]), index(path, i), walk));
  }
}

/** Old list items correlate with new ones only in `list-type: map` lists, by their keys. */
function listCorrelation(node: RuleNode, old: unknown): (item: unknown) => unknown {
  const keys = node.schema['x-kubernetes-list-map-keys'] ?? [];
  if (node.schema['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old) || keys.length === 0) return () => undefined;
  const id = (v: unknown) => (isObject(v) ? JSON.stringify(keys.map((k) => String(v[k]))) : '');
  const byKey = new Map(old.map((v) => [id(v), v]));
  return (item) => byKey.get(id(item));
}

function runRules(node: RuleNode, value: unknown, old: unknown, path: string, walk: Walk): void {
  const type = node.schema.type ?? (node.schema['x-kubernetes-int-or-string'] ? 'integer-or-string' : 'object');
  for (const r of node.rules) {
    if (r.transition && old === undefined && !r.optionalOldSelf) continue;
    const vars = { self: value, oldSelf: r.optionalOldSelf ? Optional.of(old) : old };
    const text = ruleErrorString(r);
    let result: unknown;
    try {
      result = r.program.evaluate(vars, walk.size);
    } catch (err) {
      if (err instanceof CelCostError) {
        walk.errs.push(invalidAt(path, type, `'${err.message}': no further validation rules will be run due to call cost exceeds limit for rule: ${text}`));
        throw new BudgetExhausted();
      }
      if (!(err instanceof CelEvalError)) throw err;
      const detail = err.message.startsWith('no such overload')
        ? `'${err.message}': call arguments did not match a supported operator, function or macro signature for rule: ${text}`
        : `${err.message} evaluating rule: ${text}`;
      walk.errs.push(invalidAt(path, type, detail));
      continue;
    }
    if (result === true) continue;
    // a rule on the root reports upstream's nil path
    const at = (r.fieldPath ? child(path, r.fieldPath) : path) || '<nil>';
    const detail = (r.message && evalMessage(r.message, vars, walk.size)) || ruleMessageOrDefault(r);
    // upstream (1.25–1.30) reports the schema type as the value: `Invalid value: "object"`
    walk.errs.push(errorForReason(r.rule.reason, at, type, detail));
  }
}

function evalMessage(p: CelProgram, vars: Record<string, unknown>, size: number): string | undefined {
  try {
    const v = p.evaluate(vars, size);
    if (typeof v !== 'string') return undefined;
    const msg = v.trim();
    if (msg === '' || msg.includes('\n') || Buffer.byteLength(msg) > MAX_MESSAGE_BYTES) return undefined;
    return msg;
  } catch (err) {
    if (err instanceof CelEvalError || err instanceof CelCostError) return undefined;
    throw err;
  }
}

function ruleErrorString(r: CompiledRule): string {
  return (r.rule.message?.trim() || r.rule.rule).trim();
}

function ruleMessageOrDefault(r: CompiledRule): string {
  return r.rule.message ? r.rule.message.trim() : `failed rule: ${ruleErrorString(r)}`;
}

function invalidAt(field: string, type: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: field || '<nil>', badValue: type, detail };
}

function errorForReason(reason: string | undefined, field: string, value: unknown, detail: string): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return { type: 'FieldValueForbidden', field, detail };
    case 'FieldValueRequired':
      return { type: 'FieldValueRequired', field, detail };
    case 'FieldValueDuplicate':
      return { type: 'FieldValueDuplicate', field, badValue: value };
    default:
      return { type: 'FieldValueInvalid', field, badValue: value, detail };
  }
}
