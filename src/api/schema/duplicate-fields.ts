/**
 * Strict JSON: the paths of keys that occur twice in one object, which
 * `JSON.parse` silently collapses (last one wins). Paths are written as the
 * API server reports them: `.spec.replicas`, `.spec.containers[0].name`.
 * Returns [] for text that is not valid JSON; parsing errors are the
 * decoder's to report.
 */
export function findDuplicateFields(jsonText: string): string[] {
  const scanner = new DuplicateScanner(jsonText);
  try {
    scanner.value('');
    return scanner.duplicates;
  } catch (err) {
    if (err instanceof MalformedJson) return [];
    throw err;
  }
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
