import { FieldSelectorParseError } from './field-selector-parse-error.js';

/** Escapes `\`, `,` and `=` so a value can sit on the right of a field selector term. */
export function escapeValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Reverses escapeValue; unknown escapes and bare `,` / `=` are errors, as upstream. */
export function unescapeValue(raw: string): string {
  if (!/[\\,=]/.test(raw)) return raw;
  let out = '';
  let inSlash = false;
  for (const c of raw) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new FieldSelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      throw new FieldSelectorParseError(`invalid field selector: unescaped character in value: ${c}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new FieldSelectorParseError('invalid field selector: invalid escape sequence: \\');
  return out;
}
