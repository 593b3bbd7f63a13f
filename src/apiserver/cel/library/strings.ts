import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';

/** The receiver of `strings.quote(s)`: a constant named `strings`. */
export class Strings {}

/**
 * The parts of cel-go's strings extension (ext.Strings, the version
 * Kubernetes enables) that the evaluator does not ship: `charAt`,
 * `replace`, `reverse`, `strings.quote`. The rest (indexOf, lastIndexOf,
 * lowerAscii, upperAscii, split, substring, trim, join) are built in.
 */
export function registerStrings(env: Environment): void {
  env
    .registerType('Strings', Strings)
    .registerConstant('strings', 'Strings', new Strings())
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      const chars = [...s];
      if (i < 0n || i > BigInt(chars.length)) throw new EvaluationError(`index out of range: ${i}`);
      return chars[Number(i)] ?? '';
    })
    .registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) => s.split(from).join(to))
    .registerFunction('string.replace(string, string, int): string', (s: string, from: string, to: string, n: bigint) => replaceN(s, from, to, Number(n)))
    .registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''))
    .registerFunction('Strings.quote(string): string', (_: Strings, s: string) => JSON.stringify(s));
}

function replaceN(s: string, from: string, to: string, n: number): string {
  if (n < 0) return s.split(from).join(to);
  let out = '';
  let rest = s;
  for (let i = 0; i < n; i++) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
    if (from === '') {
      out += rest.slice(0, 1);
      rest = rest.slice(1);
    }
  }
  return out + rest;
}
