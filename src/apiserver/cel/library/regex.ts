import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';

/**
 * Kubernetes' regex library (library/regex.go): `find` returns the first
 * match or '', `findAll` every match (optionally at most n). Patterns are
 * RE2 upstream; here JavaScript's engine runs them (the common syntax is the
 * same), compiled once per pattern.
 */
export function registerRegex(env: Environment): void {
  env
    .registerFunction('string.find(string): string', (s: string, re: string) => compile(re, false).exec(s)?.[0] ?? '')
    .registerFunction('string.findAll(string): list<string>', (s: string, re: string) => findAll(s, re, -1))
    .registerFunction('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => findAll(s, re, Number(n)));
}

const cache = new Map<string, RegExp>();

export function compile(pattern: string, global: boolean): RegExp {
  const id = `${global ? 'g' : ''}/${pattern}`;
  let re = cache.get(id);
  if (!re) {
    try {
      re = new RegExp(pattern, global ? 'gu' : 'u');
    } catch (err) {
      throw new EvaluationError(`Failed to compile regex: ${(err as Error).message}`);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(id, re);
  }
  re.lastIndex = 0;
  return re;
}

function findAll(s: string, pattern: string, n: number): string[] {
  if (n === 0) return [];
  const out: string[] = [];
  for (const m of s.matchAll(compile(pattern, true))) {
    out.push(m[0]);
    if (n > 0 && out.length >= n) break;
  }
  return out;
}
