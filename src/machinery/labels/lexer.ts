/** Tokens of the label selector grammar, as upstream's lexer produces them. */
export type TokenKind =
  | 'error'
  | 'end'
  | 'closedPar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'greaterThan'
  | 'identifier'
  | 'in'
  | 'lessThan'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

export interface Token {
  kind: TokenKind;
  literal: string;
}

const KEYWORDS: Readonly<Record<string, TokenKind>> = {
  ')': 'closedPar',
  ',': 'comma',
  '!': 'doesNotExist',
  '==': 'doubleEquals',
  '=': 'equals',
  '>': 'greaterThan',
  in: 'in',
  '<': 'lessThan',
  '!=': 'notEquals',
  notin: 'notIn',
  '(': 'openPar',
};

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

function keyword(s: string): TokenKind | undefined {
  return Object.hasOwn(KEYWORDS, s) ? KEYWORDS[s] : undefined;
}

/** Splits a selector string into tokens, ending with an `end` token. */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (;;) {
    while (pos < input.length && WHITESPACE.has(input[pos])) pos++;
    if (pos >= input.length) {
      tokens.push({ kind: 'end', literal: '' });
      return tokens;
    }
    if (SPECIAL.has(input[pos])) {
      // Longest run of special symbols that is still a known operator.
      let buffer = '';
      let last: Token | undefined;
      while (pos < input.length && SPECIAL.has(input[pos])) {
        const candidate = buffer + input[pos];
        const kind = keyword(candidate);
        if (kind) {
          last = { kind, literal: candidate };
        } else if (last) {
          break;
        }
        buffer = candidate;
        pos++;
      }
      tokens.push(last ?? { kind: 'error', literal: `error expected: keyword found '${buffer}'` });
      continue;
    }
    const start = pos;
    while (pos < input.length && !WHITESPACE.has(input[pos]) && !SPECIAL.has(input[pos])) pos++;
    const word = input.slice(start, pos);
    tokens.push({ kind: keyword(word) ?? 'identifier', literal: word });
  }
}
