import { tokenize, type Token, type TokenKind } from './lexer.js';
import { isQualifiedName } from './label-validation.js';
import { Requirement, invalidValue, type Operator } from './requirement.js';
import { SelectorParseError } from './selector-parse-error.js';
import { selectorFromRequirements, type Selector } from './selector.js';

/**
 * Parses the string form of a label selector (`?labelSelector=`), with every
 * operator upstream supports: `=`, `==`, `!=`, `in (…)`, `notin (…)`, a bare key
 * (exists), `!key`, and `>` / `<` with integers. Throws SelectorParseError with
 * upstream's wording.
 */
export function parseSelector(selector: string): Selector {
  return selectorFromRequirements(new Parser(tokenize(selector)).parse());
}

const BINARY_OPERATORS: readonly Operator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

/** Where a token is read: in value position `in`/`notin` are plain identifiers. */
type Context = 'keyAndOperator' | 'values';

class Parser {
  private position = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const { kind, literal } = this.lookahead('values');
      if (kind === 'end') return requirements;
      if (kind !== 'identifier' && kind !== 'doesNotExist') {
        throw new SelectorParseError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.parseRequirement());
      } catch (err) {
        if (err instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      const next = this.consume('values');
      if (next.kind === 'end') return requirements;
      if (next.kind !== 'comma') throw new SelectorParseError(`found '${next.literal}', expected: ',' or 'end of string'`);
      const after = this.lookahead('values');
      if (after.kind !== 'identifier' && after.kind !== 'doesNotExist') {
        throw new SelectorParseError(`found '${after.literal}', expected: identifier after ','`);
      }
    }
  }

  private lookahead(context: Context): Token {
    return this.view(this.tokens[this.position], context);
  }

  private consume(context: Context): Token {
    const token = this.tokens[this.position];
    // The final `end` token stays put, so reading past the end keeps returning it.
    if (this.position < this.tokens.length - 1) this.position++;
    return this.view(token, context);
  }

  private view(token: Token, context: Context): Token {
    if (context === 'values' && (token.kind === 'in' || token.kind === 'notIn')) {
      return { kind: 'identifier', literal: token.literal };
    }
    return token;
  }

  private parseRequirement(): Requirement {
    let token = this.consume('values');
    const negated = token.kind === 'doesNotExist';
    if (negated) token = this.consume('values');
    if (token.kind !== 'identifier') throw new SelectorParseError(`found '${token.literal}', expected: identifier`);
    const key = token.literal;
    const keyErrs = isQualifiedName(key);
    // Upstream validates the key against a nil field path here, hence "<nil>".
    if (keyErrs.length) throw new SelectorParseError(invalidValue('<nil>', key, keyErrs.join('; ')));
    const next = this.lookahead('values').kind;
    if (negated) return Requirement.create(key, '!', []);
    if (next === 'end' || next === 'comma') return Requirement.create(key, 'exists', []);
    const operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return Requirement.create(key, operator, values);
  }

  private parseOperator(): Operator {
    const { kind, literal } = this.consume('keyAndOperator');
    const operators: Partial<Record<TokenKind, Operator>> = {
      in: 'in',
      equals: '=',
      doubleEquals: '==',
      greaterThan: 'gt',
      lessThan: 'lt',
      notIn: 'notin',
      notEquals: '!=',
    };
    const op = operators[kind];
    if (!op) throw new SelectorParseError(`found '${literal}', expected: ${BINARY_OPERATORS.join(', ')}`);
    return op;
  }

  /** `( a, b, … )`; the result is a sorted set, and `()` means the empty value. */
  private parseValues(): string[] {
    const open = this.consume('values');
    if (open.kind !== 'openPar') throw new SelectorParseError(`found '${open.literal}' expected: '('`);
    const { kind, literal } = this.lookahead('values');
    if (kind === 'closedPar') {
      this.consume('values');
      return [''];
    }
    if (kind !== 'identifier' && kind !== 'comma') {
      throw new SelectorParseError(`found '${literal}', expected: ',', ')' or identifier`);
    }
    const values = this.parseIdentifiersList();
    if (this.consume('values').kind !== 'closedPar') throw new SelectorParseError(`found '${literal}', expected: ')'`);
    return [...values].sort();
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { kind, literal } = this.consume('values');
      if (kind === 'identifier') {
        values.add(literal);
        const next = this.lookahead('values');
        if (next.kind === 'comma') continue;
        if (next.kind === 'closedPar') return values;
        throw new SelectorParseError(`found '${next.literal}', expected: ',' or ')'`);
      }
      if (kind !== 'comma') throw new SelectorParseError(`found '${literal}', expected: ',', or identifier`);
      // Empty entries around commas, as in `(,a)`, `(a,)` or `(a,,b)`, are the empty value.
      if (values.size === 0) values.add('');
      const next = this.lookahead('values').kind;
      if (next === 'closedPar') {
        values.add('');
        return values;
      }
      if (next === 'comma') {
        this.consume('values');
        values.add('');
      }
    }
  }

  /** The single value after `=`, `==`, `!=`, `>` or `<`; missing means "". */
  private parseExactValue(): string[] {
    const next = this.lookahead('values').kind;
    if (next === 'end' || next === 'comma') return [''];
    const { kind, literal } = this.consume('values');
    if (kind === 'identifier') return [literal];
    throw new SelectorParseError(`found '${literal}', expected: identifier`);
  }
}
