/**
 * The JSONPath subset printer columns, scale paths and selectable fields use:
 * `.a.b`, `.a[0]`, `.a[*].b`, `.a['b.c']` and filters `[?(@.type=="Ready")]`.
 * Returns every match, in order.
 */
export function jsonPathFind(obj: unknown, path: string): unknown[] {
  let current: unknown[] = [obj];
  for (const step of parse(path)) current = current.flatMap((v) => apply(step, v));
  return current.filter((v) => v !== undefined);
}

type Step = { field: string } | { index: number } | { all: true } | { filter: { field: string; op: '==' | '!='; value: unknown } };

export function parse(path: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const p = path.replace(/^\{?\$?|\}$/g, '');
  while (i < p.length) {
    if (p[i] === '.') {
      i++;
      const m = /^[^.[]+/.exec(p.slice(i));
      if (!m) continue;
      steps.push({ field: m[0] });
      i += m[0].length;
    } else if (p[i] === '[') {
      const end = p.indexOf(']', p[i + 1] === '?' ? p.indexOf(')', i) : i);
      if (end < 0) throw new Error(`unterminated [ in ${path}`);
      const inner = p.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ field: inner.slice(1, -1) });
      else {
        const f = /^\?\(@\.([\w.-]+)\s*(==|!=)\s*(.+)\)$/.exec(inner);
        if (!f) throw new Error(`unsupported JSONPath step [${inner}]`);
        const raw = f[3].trim();
        const value = /^'.*'$/.test(raw) ? raw.slice(1, -1) : (JSON.parse(raw) as unknown);
        steps.push({ filter: { field: f[1], op: f[2] as '==' | '!=', value } });
      }
    } else throw new Error(`unexpected ${p[i]} in ${path}`);
  }
  return steps;
}

function apply(step: Step, v: unknown): unknown[] {
  if ('field' in step) return typeof v === 'object' && v !== null && !Array.isArray(v) ? [(v as Record<string, unknown>)[step.field]] : [];
  if (!Array.isArray(v)) return [];
  if ('index' in step) return [v[step.index < 0 ? v.length + step.index : step.index]];
  if ('all' in step) return v;
  const { field, op, value } = step.filter;
  return v.filter((item) => {
    const got = field.split('.').reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined), item);
    return op === '==' ? got === value : got !== value;
  });
}
