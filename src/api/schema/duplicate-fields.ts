/**
 * Strict JSON: the paths of keys that occur twice in one object, which
 * `JSON.parse` silently collapses (last one wins). Paths are written as the
 * API server reports them: `.spec.replicas`, `.spec.containers[0].name`.
 * Returns [] for text that is not valid JSON; parsing errors are the
 * decoder's to report.
 *
 * With `parsedKeys` (countParsedKeys of the untouched `JSON.parse(jsonText)`)
 * most bodies skip the scanner: see hasNoDuplicateKeys.
 */
export function findDuplicateFields(jsonText: string, parsedKeys?: number): string[] {
  if (parsedKeys !== undefined && hasNoDuplicateKeys(jsonText, parsedKeys)) return [];
  const scanner = new DuplicateScanner(jsonText);
  try {
    scanner.value('');
    return scanner.duplicates;
  } catch (err) {
    if (err instanceof MalformedJson) return [];
    throw err;
  }
}

/**
 * The keys of a parsed JSON value, counted over every object in it. A key
 * the text gives twice in one object is counted once, as JSON.parse keeps one.
 */
export function countParsedKeys(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) n += countParsedKeys(item);
    return n;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  n = keys.length;
  for (const k of keys) {
    const v = obj[k];
    if (typeof v === 'object' && v !== null) n += countParsedKeys(v);
  }
  return n;
}

/**
 * A JSON string token, escape-aware; the unrolled form keeps V8's regexp
 * linear. In valid JSON text, scanning for it from the start meets each
 * string exactly once, since outside strings there is no quote.
 */
const JSON_STRING = /"[^"\\]*(?:\\.[^"\\]*)*"/g;

/**
 * The fast path, exact for valid JSON text whose parse kept `parsedKeys`
 * keys: every object member in the text has exactly one `:` outside
 * strings, and a parse keeps one key per distinct name in each object, so the
 * text has no duplicate key if and only if its members number `parsedKeys`.
 * A text whose count differs (a duplicate, or anything unexpected) is left
 * to the scanner, which reports the paths.
 */
export function hasNoDuplicateKeys(jsonText: string, parsedKeys: number): boolean {
  // Colons anywhere bound the members from above; members never number fewer than the kept keys.
  const colons = countColons(jsonText);
  if (colons === parsedKeys) return true;
  if (colons < parsedKeys) return false;
  // Colons inside strings (times, images, escaped JSON) are not members: drop the strings and count again.
  return countColons(jsonText.replace(JSON_STRING, '""')) === parsedKeys;
}

function countColons(text: string): number {
  let n = 0;
  for (let i = text.indexOf(':'); i !== -1; i = text.indexOf(':', i + 1)) n++;
  return n;
}

class MalformedJson extends Error {
  constructor(at: number) {
    super(`malformed JSON at offset ${at}`);
    this.name = 'MalformedJson';
  }
}

const LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class DuplicateScanner {
  readonly duplicates: string[] = [];
  private pos = 0;

  constructor(private readonly text: string) {}

  value(path: string): void {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === '{') return this.object(path);
    if (c === '[') return this.array(path);
    if (c === '"') {
      this.string();
      return;
    }
    LITERAL.lastIndex = this.pos;
    const m = LITERAL.exec(this.text);
    if (!m) throw new MalformedJson(this.pos);
    this.pos += m[0].length;
  }

  private object(path: string): void {
    this.pos++;
    const seen = new Set<string>();
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return;
    }
    for (;;) {
      this.skipSpace();
      const key = this.string();
      const child = `${path}.${key}`;
      if (seen.has(key)) {
        if (!this.duplicates.includes(child)) this.duplicates.push(child);
      } else seen.add(key);
      this.expect(':');
      this.value(child);
      if (this.separator('}')) return;
    }
  }

  private array(path: string): void {
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return;
    }
    for (let i = 0; ; i++) {
      this.value(`${path}[${i}]`);
      if (this.separator(']')) return;
    }
  }

  /** Consumes `,` (returns false) or the closing bracket (returns true). */
  private separator(close: string): boolean {
    this.skipSpace();
    const c = this.text[this.pos++];
    if (c === close) return true;
    if (c !== ',') throw new MalformedJson(this.pos - 1);
    return false;
  }

  private string(): string {
    STRING.lastIndex = this.pos;
    const m = STRING.exec(this.text);
    if (!m) throw new MalformedJson(this.pos);
    this.pos += m[0].length;
    return JSON.parse(m[0]) as string;
  }

  private expect(c: string): void {
    this.skipSpace();
    if (this.text[this.pos] !== c) throw new MalformedJson(this.pos);
    this.pos++;
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos])) this.pos++;
  }
}
