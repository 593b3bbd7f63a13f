import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';

/** A URL as Go's url.ParseRequestURI reads it: the parts as written, not normalized. */
export class URL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly rawQuery: string,
  ) {}

  hostname(): string {
    if (this.host.startsWith('[')) return this.host.slice(1, this.host.indexOf(']'));
    const colon = this.host.lastIndexOf(':');
    return colon < 0 ? this.host : this.host.slice(0, colon);
  }

  port(): string {
    const bracket = this.host.lastIndexOf(']');
    const colon = this.host.lastIndexOf(':');
    return colon > bracket ? this.host.slice(colon + 1) : '';
  }
}

const ABSOLUTE = /^([a-zA-Z][a-zA-Z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#.*)?$/;
const PATH_ONLY = /^(\/[^?#]*)(?:\?([^#]*))?(?:#.*)?$/;

/** Parses an absolute URL or an absolute path; undefined when Go would refuse it. */
export function parseRequestURI(s: string): URL | undefined {
  if (/[\s\u0000-\u001f\u007f]/.test(s)) return undefined;
  const path = PATH_ONLY.exec(s);
  if (path) return new URL('', '', path[1] ?? '', path[2] ?? '');
  const abs = ABSOLUTE.exec(s);
  if (!abs) return undefined;
  const authority = abs[2] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (/[^a-zA-Z0-9._~!$&'()*+,;=:%[\]-]/.test(host)) return undefined;
  return new URL(abs[1] ?? '', host, abs[3] ?? '', abs[4] ?? '');
}

/**
 * Kubernetes' URLs library (library/urls.go): `url(s)`, `isURL(s)` and the
 * getters (scheme, host, hostname, port, escaped path, query).
 */
export function registerUrls(env: Environment): void {
  env
    .registerType('URL', URL)
    .registerFunction('url(string): URL', (s: string) => {
      const u = parseRequestURI(s);
      if (!u) throw new EvaluationError(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
      return u;
    })
    .registerFunction('isURL(string): bool', (s: string) => parseRequestURI(s) !== undefined)
    .registerFunction('URL.getScheme(): string', (u: URL) => u.scheme)
    .registerFunction('URL.getHost(): string', (u: URL) => u.host)
    .registerFunction('URL.getHostname(): string', (u: URL) => u.hostname())
    .registerFunction('URL.getPort(): string', (u: URL) => u.port())
    .registerFunction('URL.getEscapedPath(): string', (u: URL) => u.path)
    .registerFunction('URL.getQuery(): map', (u: URL) => query(u.rawQuery));
}

function query(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(raw)) out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}
