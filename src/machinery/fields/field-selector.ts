import { escapeValue, unescapeValue } from './escape.js';
import { FieldSelectorParseError } from './field-selector-parse-error.js';

/** `=` and `==` mean the same; both parse to `=`. */
export type FieldOperator = '=' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

/** The fields of an object a selector is evaluated against, e.g. `metadata.name`. */
export type Fields = Readonly<Record<string, string>>;

/** Rewrites one term; used by the API server to map or reject field labels. */
export type FieldTransformFunc = (field: string, value: string) => { field: string; value: string };

/** A parsed field selector: requirements ANDed. */
export class FieldSelector {
  private constructor(private readonly items: readonly FieldRequirement[]) {}

  static readonly EVERYTHING = new FieldSelector([]);

  static fromRequirements(items: readonly FieldRequirement[]): FieldSelector {
    return items.length === 0 ? FieldSelector.EVERYTHING : new FieldSelector([...items]);
  }

  /** A missing field reads as "", as upstream's fields.Set.Get. */
  matches(fields: Fields): boolean {
    return this.items.every((r) => {
      const have = Object.hasOwn(fields, r.field) ? fields[r.field] : '';
      return r.operator === '=' ? have === r.value : have !== r.value;
    });
  }

  empty(): boolean {
    return this.items.length === 0;
  }

  /** Every term, so the API server can check which fields are referenced. */
  requirements(): readonly FieldRequirement[] {
    return this.items;
  }

  /** The value an `=` term demands for `field` (e.g. `metadata.name`), if any. */
  requiresExactMatch(field: string): string | undefined {
    return this.items.find((r) => r.field === field && r.operator === '=')?.value;
  }

  /** Maps each term through fn; a term mapped to an empty field and value is dropped, as upstream. */
  transform(fn: FieldTransformFunc): FieldSelector {
    const items = this.items
      .map((r) => ({ ...fn(r.field, r.value), operator: r.operator }))
      .filter((r) => r.field !== '' || r.value !== '');
    return FieldSelector.fromRequirements(items);
  }

  toString(): string {
    return this.items.map((r) => `${r.field}${r.operator}${escapeValue(r.value)}`).join(',');
  }
}

// `!=` and `==` are tried before `=` so that no `=` is left on the value.
const TERM_OPERATORS = ['!=', '==', '='] as const;

/**
 * Parses `a=b,c!=d,e==f`. Values may escape `\,` `\=` `\\`; field names take
 * no escapes, so the first operator splits the term. Terms are sorted, as
 * upstream does, which makes toString() deterministic.
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const items: FieldRequirement[] = [];
  for (const term of splitTerms(selector).sort()) {
    if (term === '') continue;
    const split = splitTerm(term);
    if (!split) throw new FieldSelectorParseError(`invalid selector: '${selector}'; can't understand '${term}'`);
    items.push({ field: split.field, operator: split.op === '!=' ? '!=' : '=', value: unescapeValue(split.rhs) });
  }
  return FieldSelector.fromRequirements(items);
}

/** Splits on commas that are not escaped; escapes stay in place. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

function splitTerm(term: string): { field: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const op = TERM_OPERATORS.find((o) => term.startsWith(o, i));
    if (op) return { field: term.slice(0, i), op, rhs: term.slice(i + op.length) };
  }
  return undefined;
}

/** Upstream's message when a resource does not support selecting on a field. */
export function fieldLabelNotSupportedMessage(field: string): string {
  return `field label not supported: ${field}`;
}
