import type { ObjectTrace, SpanRecord, TraceRecord } from '../../trace/journey.js';

/** The lanes of a sequence diagram, in the order the walk goes; others follow in order of appearance. */
const LANE_ORDER = ['kubectl', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubelet', 'kube-proxy'];

/** Hops worth a note on their component's lane (besides the arrows of requests and watch deliveries). */
const NOTED = new Set(['reconcile', 'queue', 'schedule', 'bind', 'sync', 'sandbox', 'image-pull', 'container-start', 'status', 'proxy', 'registration', 'heartbeat']);

const ms = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(2)}s` : `${n.toFixed(1)}ms`);

/** `create deployments.apps default/web` style label of a span, with its resourceVersion. */
function label(s: SpanRecord, byId: ReadonlyMap<string, SpanRecord>): string {
  const a = s.attributes;
  const obj = [a['k8s.namespace.name'], a['k8s.object.name']].filter(Boolean).join('/');
  let rv = a['k8s.resource_version'];
  if (s.hop === 'request' && rv === undefined) {
    // the request's resourceVersion is its storage commit's
    for (const c of byId.values()) if (c.parentSpanId === s.spanId && c.hop === 'storage') rv = c.attributes['k8s.resource_version'];
  }
  const parts = [s.name.includes(String(a['k8s.object.name'] ?? '\0')) ? s.name : [s.name, obj].filter(Boolean).join(' ')];
  if (rv !== undefined) parts.push(`rv=${rv}`);
  if (s.hop === 'watch' && a['skiff.watch.delay_ms'] !== undefined) parts.push(`+${ms(Number(a['skiff.watch.delay_ms']))} after commit`);
  if (s.hop === 'reconcile' && a['skiff.queue.wait_ms'] !== undefined) parts.push(`queued ${ms(Number(a['skiff.queue.wait_ms']))}`);
  if (Number(a['skiff.causes']) > 1) parts.push(`${a['skiff.causes']} causes`);
  return parts.join('  ');
}

function depthOf(s: SpanRecord, byId: ReadonlyMap<string, SpanRecord>): number {
  let d = 0;
  for (let p = s.parentSpanId ? byId.get(s.parentSpanId) : undefined; p && d < 40; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) d++;
  return d;
}

/** One timeline line per span: offset, duration, component, initiator, hop, the span (indented by depth), critical-path mark. */
export function timelineLines(t: TraceRecord, spans: readonly SpanRecord[] = t.spans): string[] {
  const byId = new Map(t.spans.map((s) => [s.spanId, s]));
  const critical = new Set(t.criticalPath);
  return spans.map((s) => {
    const depth = Math.min(depthOf(s, byId), 12);
    return [
      critical.has(s.spanId) ? '*' : ' ',
      `+${ms(s.start - t.start)}`.padStart(10),
      ms(s.durationMs).padStart(9),
      s.component.padEnd(24),
      (s.initiator ?? '').padEnd(7),
      (s.hop ?? '').padEnd(15),
      `${'  '.repeat(depth)}${label(s, byId)}`,
    ].join(' ');
  });
}

export const TIMELINE_HEADER = `${' '.repeat(1)} ${'START'.padStart(10)} ${'DURATION'.padStart(9)} ${'COMPONENT'.padEnd(24)} ${'VIA'.padEnd(7)} ${'HOP'.padEnd(15)} SPAN`;

interface Message {
  at: number;
  from: string;
  to: string;
  text: string;
}

/** The arrows and notes of the sequence diagram: client calls into the API server, watch deliveries out of it, work on each lane. */
function messages(t: TraceRecord): Message[] {
  const byId = new Map(t.spans.map((s) => [s.spanId, s]));
  const out: Message[] = [];
  for (const s of t.spans) {
    const parent = s.parentSpanId ? byId.get(s.parentSpanId) : undefined;
    if (s.hop === 'request') {
      const caller = parent?.component ?? (s.parentSpanId ? 'caller' : 'kubectl');
      out.push({ at: s.start, from: caller, to: s.component, text: `${label(s, byId)}  (${ms(s.durationMs)})` });
    } else if (s.hop === 'watch') {
      out.push({ at: s.start, from: parent?.component ?? 'kube-apiserver', to: s.component, text: label(s, byId) });
    } else if (s.hop && NOTED.has(s.hop)) {
      out.push({ at: s.start, from: s.component, to: s.component, text: `${label(s, byId)}  (${ms(s.durationMs)})` });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** An ASCII sequence diagram: one column per component, arrows for calls and watch deliveries, `o` for work on a lane. */
export function sequenceLines(t: TraceRecord): string[] {
  const msgs = messages(t);
  const seen = new Set(msgs.flatMap((m) => [m.from, m.to]));
  const lanes = [...LANE_ORDER.filter((l) => seen.has(l)), ...[...seen].filter((l) => !LANE_ORDER.includes(l))];
  const width = Math.max(...lanes.map((l) => l.length), 10) + 3;
  const center = (i: number): number => i * width + Math.floor(width / 2);
  const total = lanes.length * width;
  const row = (): string[] => {
    const chars = Array<string>(total).fill(' ');
    lanes.forEach((_, i) => (chars[center(i)] = '|'));
    return chars;
  };
  const header = lanes.map((l) => l.padStart(Math.floor((width + l.length) / 2)).padEnd(width)).join('');
  const lines = [`${''.padStart(10)}  ${header}`];
  for (const m of msgs) {
    const chars = row();
    const a = lanes.indexOf(m.from);
    const b = lanes.indexOf(m.to);
    if (a === b) chars[center(a)] = 'o';
    else {
      const [lo, hi] = [Math.min(center(a), center(b)), Math.max(center(a), center(b))];
      for (let x = lo + 1; x < hi; x++) chars[x] = '-';
      if (b > a) chars[hi - 1] = '>';
      else chars[lo + 1] = '<';
    }
    lines.push(`${`+${ms(m.at - t.start)}`.padStart(10)}  ${chars.join('').trimEnd().padEnd(total)}  ${m.text}`);
  }
  return lines;
}

/** The critical path: the chain of causes the trace's last span waited on. */
export function criticalPathLines(t: TraceRecord): string[] {
  const byId = new Map(t.spans.map((s) => [s.spanId, s]));
  const path = t.criticalPath.map((id) => byId.get(id)).filter((s): s is SpanRecord => Boolean(s));
  return path.map((s, i) => `  ${String(i + 1).padStart(2)}. +${ms(s.start - t.start).padEnd(9)} ${s.component.padEnd(24)} ${label(s, byId)}  (${ms(s.durationMs)})`);
}

/** The whole text rendering of an object's journeys. */
export function renderJourney(trace: ObjectTrace, what: string): string {
  if (trace.traces.length === 0) return `${what}: ${trace.message ?? 'no trace recorded'}\n`;
  const out: string[] = [`${what}: ${trace.traces.length} trace(s), ${trace.writes.length} recorded write(s)`];
  for (const t of trace.traces) {
    const components = [...new Set(t.spans.map((s) => s.component))];
    out.push('', `Trace ${t.traceId}: ${t.spans.length} spans over ${ms(t.durationMs)}, started ${new Date(t.start).toISOString()}; components: ${components.join(', ')}`);
    out.push('', 'Timeline (* = on the critical path):', TIMELINE_HEADER, ...timelineLines(t));
    out.push('', 'Sequence:', ...sequenceLines(t));
    out.push('', `Critical path (${ms(t.durationMs)}):`, ...criticalPathLines(t));
  }
  return `${out.join('\n')}\n`;
}
