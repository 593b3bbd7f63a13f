/**
 * JSON text as Go's encoding/json writes it for the API server: `<`, `>`,
 * `&`, U+2028 and U+2029 escaped (json.Encoder escapes HTML by default), a
 * trailing newline after each value (Encoder.Encode), or two-space
 * indentation and no newline for `pretty` (json.MarshalIndent).
 */
const HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_UNSAFE_ALL = /[<>&\u2028\u2029]/g;
const ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** Escapes what Go escapes in serialized JSON (only ever inside strings, where these characters can appear). */
export function escapeGoJson(json: string): string {
  return HTML_UNSAFE.test(json) ? json.replace(HTML_UNSAFE_ALL, (c) => ESCAPES[c]) : json;
}

export function goJson(value: unknown, pretty = false): string {
  return pretty ? escapeGoJson(JSON.stringify(value, null, 2)) : `${escapeGoJson(JSON.stringify(value))}\n`;
}
