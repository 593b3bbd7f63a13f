import { isQualifiedName, isValidLabelValue } from './label-validation.js';
import { SelectorParseError } from './selector-parse-error.js';

/** Operators of a label requirement, spelled as upstream's selection.Operator. */
export type Operator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export const OPERATORS: readonly Operator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!'];

/** Labels of an object; undefined means "no labels". */
export type Labels = Readonly<Record<string, string>> | undefined;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64): optional sign, decimal digits, int64 range. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

function hasLabel(labels: Labels, key: string): labels is Readonly<Record<string, string>> {
  // Own properties only: `constructor` or `__proto__` must not look like labels.
  return labels !== undefined && Object.hasOwn(labels, key);
}

/** One `key op values` term of a selector. Immutable once built. */
export class Requirement {
  private constructor(
    readonly key: string,
    readonly operator: Operator,
    readonly values: readonly string[],
  ) {}

  /**
   * Builds a validated requirement; throws SelectorParseError worded as
   * upstream's NewRequirement. `path` prefixes field paths ("" at the root).
   */
  static create(key: string, operator: Operator, values: readonly string[], path = ''): Requirement {
    const errs: string[] = [];
    const at = (child: string) => (path ? `${path}.${child}` : child);
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length) errs.push(invalidValue(at('key'), key, keyErrs.join('; ')));
    const valuesPath = at('values');
    switch (operator) {
      case 'in':
      case 'notin':
        if (values.length === 0) errs.push(invalidValue(valuesPath, values, "for 'in', 'notin' operators, values set can't be empty"));
        break;
      case '=':
      case '==':
      case '!=':
        if (values.length !== 1) errs.push(invalidValue(valuesPath, values, 'exact-match compatibility requires one single value'));
        break;
      case 'exists':
      case '!':
        if (values.length !== 0) errs.push(invalidValue(valuesPath, values, 'values set must be empty for exists and does not exist'));
        break;
      case 'gt':
      case 'lt':
        if (values.length !== 1) errs.push(invalidValue(valuesPath, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
        values.forEach((v, i) => {
          if (parseInt64(v) === undefined) {
            errs.push(invalidValue(`${valuesPath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
          }
        });
        break;
      default:
        errs.push(
          `${at('operator')}: Unsupported value: ${JSON.stringify(operator)}: supported values: ${OPERATORS.map((o) => JSON.stringify(o)).join(', ')}`,
        );
    }
    values.forEach((v, i) => {
      const valueErrs = isValidLabelValue(v);
      if (valueErrs.length) errs.push(invalidValue(`${valuesPath}[${i}][${key}]`, v, valueErrs.join('; ')));
    });
    if (errs.length) throw new SelectorParseError(aggregate(errs));
    return new Requirement(key, operator, [...values]);
  }

  matches(labels: Labels): boolean {
    switch (this.operator) {
      case 'in':
      case '=':
      case '==':
        return hasLabel(labels, this.key) && this.values.includes(labels[this.key]);
      case 'notin':
      case '!=':
        return !hasLabel(labels, this.key) || !this.values.includes(labels[this.key]);
      case 'exists':
        return hasLabel(labels, this.key);
      case '!':
        return !hasLabel(labels, this.key);
      case 'gt':
      case 'lt': {
        if (!hasLabel(labels, this.key) || this.values.length !== 1) return false;
        const have = parseInt64(labels[this.key]);
        const want = parseInt64(this.values[0]);
        if (have === undefined || want === undefined) return false;
        return this.operator === 'gt' ? have > want : have < want;
      }
    }
  }

  /** The string form upstream prints; values of set operators are sorted. */
  toString(): string {
    const key = this.key;
    const joined = () => (this.values.length === 1 ? this.values[0] : [...this.values].sort().join(','));
    switch (this.operator) {
      case 'exists':
        return key;
      case '!':
        return `!${key}`;
      case 'in':
        return `${key} in (${joined()})`;
      case 'notin':
        return `${key} notin (${joined()})`;
      case 'gt':
        return `${key}>${joined()}`;
      case 'lt':
        return `${key}<${joined()}`;
      default:
        return `${key}${this.operator}${joined()}`;
    }
  }
}

/** field.Invalid(...).Error(), with Go's %q / %#v rendering of the bad value. */
export function invalidValue(path: string, value: string | readonly string[], detail: string): string {
  const shown = typeof value === 'string' ? JSON.stringify(value) : `[]string{${value.map((v) => JSON.stringify(v)).join(', ')}}`;
  return `${path}: Invalid value: ${shown}: ${detail}`;
}

/** utilerrors.Aggregate: one message alone, several in brackets. */
function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
