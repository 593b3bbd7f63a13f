/** A parsed media type with parameters, e.g. `application/json;as=Table;v=v1;g=meta.k8s.io`. */
export interface MediaType {
  type: string;
  params: Record<string, string>;
  q: number;
}

export function parseMediaType(value: string): MediaType {
  const [type, ...rest] = value.split(';');
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of rest) {
    const i = p.indexOf('=');
    if (i < 0) continue;
    const k = p.slice(0, i).trim().toLowerCase();
    const v = p.slice(i + 1).trim().replace(/^"|"$/g, '');
    if (k === 'q') q = Number(v) || 0;
    else params[k] = v;
  }
  return { type: type.trim().toLowerCase(), params, q };
}

/** The Accept header's media types, best first (stable for equal q). */
export function parseAccept(header: string | undefined): MediaType[] {
  if (!header) return [{ type: '*/*', params: {}, q: 1 }];
  return header
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(parseMediaType)
    .map((m, i) => ({ m, i }))
    .sort((a, b) => b.m.q - a.m.q || a.i - b.i)
    .map(({ m }) => m);
}
