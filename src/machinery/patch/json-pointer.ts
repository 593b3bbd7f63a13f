import { PatchError } from './patch-error.js';

/** RFC 6901: "" is the whole document; `~1` is `/` and `~0` is `~` inside a token. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError('PatchFailed', `JSON pointer must be empty or start with a "/": ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export function formatJsonPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/**
 * An array index token: decimal without leading zeros. `-` (one past the end)
 * is only meaningful for add and is handled by the caller.
 */
export function parseArrayIndex(token: string): number | undefined {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : undefined;
}
