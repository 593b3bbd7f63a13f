import type { SpanRecord, TraceRecord } from '../../src/trace/journey.js';

/**
 * Turns one causal trace (the trace query API's TraceRecord) into the rows of
 * a sequence diagram across the component lanes the seed documents draw:
 * who called whom, which watch delivered what, and the work in between.
 * Pure, so the diagram's meaning is unit-tested apart from its drawing.
 */

export interface Lane {
  id: string;
  label: string;
}

/** The lanes in the seeds' order; components not listed get lanes of their own at the end. */
export const LANES: readonly Lane[] = [
  { id: 'client', label: 'kubectl / client' },
  { id: 'kube-apiserver', label: 'API server' },
  { id: 'storage', label: 'storage' },
  { id: 'kube-controller-manager', label: 'controller manager' },
  { id: 'kube-scheduler', label: 'scheduler' },
  { id: 'kubelet', label: 'kubelet' },
  { id: 'kube-proxy', label: 'kube-proxy' },
];

export type StepKind = 'call' | 'commit' | 'watch' | 'work' | 'stage';

export interface Step {
  spanId: string;
  kind: StepKind;
  /** Lane ids; equal for work done inside one component. */
  from: string;
  to: string;
  /** What the arrow says: verb and resource, watch event, commit, or the work's name. */
  label: string;
  /** resourceVersion, latency and status, for the arrow's second line. */
  detail: string;
  /** Milliseconds from the trace's start. */
  offsetMs: number;
  durationMs: number;
  critical: boolean;
  error: boolean;
}

export interface JourneyLayout {
  lanes: Lane[];
  steps: Step[];
}

const API_SERVER_STAGES = new Set(['authentication', 'authorization', 'admission', 'validation']);

function laneOf(component: string): string {
  return component.startsWith('kubelet') ? 'kubelet' : component;
}

function ms(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n < 10 ? n.toFixed(1) : Math.round(n)} ms`;
}

function attr(span: SpanRecord, key: string): string {
  const v = span.attributes[key];
  return v === undefined || v === null ? '' : String(v);
}

function objectLabel(span: SpanRecord): string {
  const resource = attr(span, 'k8s.resource');
  const sub = attr(span, 'k8s.subresource');
  const name = attr(span, 'k8s.object.name');
  return [resource + (sub ? `/${sub}` : ''), name].filter(Boolean).join(' ');
}

function describe(span: SpanRecord, byId: ReadonlyMap<string, SpanRecord>): Omit<Step, 'spanId' | 'offsetMs' | 'durationMs' | 'critical' | 'error'> | undefined {
  const lane = laneOf(span.component);
  const rv = attr(span, 'k8s.resource_version');
  const rvText = rv ? `RV ${rv}` : '';
  switch (span.hop) {
    case 'request': {
      const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      const from = parent && laneOf(parent.component) !== lane ? laneOf(parent.component) : 'client';
      const verb = attr(span, 'k8s.verb') || span.name.split(' ')[0]!;
      const code = attr(span, 'http.response.status_code');
      return { kind: 'call', from, to: lane, label: `${verb} ${objectLabel(span)}`.trim(), detail: [rvText, code, ms(span.durationMs)].filter(Boolean).join(' · ') };
    }
    case 'storage':
      return { kind: 'commit', from: lane, to: 'storage', label: `commit ${attr(span, 'k8s.verb') || 'write'}`.trim(), detail: [rvText, ms(span.durationMs)].filter(Boolean).join(' · ') };
    case 'watch': {
      const delay = attr(span, 'skiff.watch.delay_ms');
      const event = attr(span, 'skiff.watch.event');
      return {
        kind: 'watch',
        from: 'kube-apiserver',
        to: lane,
        label: `watch ${event} ${objectLabel(span)}`.replace(/\s+/g, ' ').trim(),
        detail: [rvText, delay ? `delay ${ms(Number(delay))}` : ''].filter(Boolean).join(' · '),
      };
    }
    default:
      if (span.hop && API_SERVER_STAGES.has(span.hop)) {
        const plugin = attr(span, 'skiff.plugin');
        return { kind: 'stage', from: lane, to: lane, label: plugin ? `${span.hop}: ${plugin}` : span.hop, detail: ms(span.durationMs) };
      }
      return { kind: 'work', from: lane, to: lane, label: span.name, detail: [rvText, ms(span.durationMs)].filter(Boolean).join(' · ') };
  }
}

/** The trace's steps in start order; the API server's internal stages only when asked for. */
export function layoutJourney(trace: TraceRecord, options: { stages?: boolean } = {}): JourneyLayout {
  const byId = new Map(trace.spans.map((s) => [s.spanId, s]));
  const critical = new Set(trace.criticalPath);
  const steps: Step[] = [];
  for (const span of [...trace.spans].sort((a, b) => a.start - b.start)) {
    const d = describe(span, byId);
    if (!d || (d.kind === 'stage' && !options.stages)) continue;
    steps.push({ ...d, spanId: span.spanId, offsetMs: span.start - trace.start, durationMs: span.durationMs, critical: critical.has(span.spanId), error: span.status === 'Error' });
  }
  const used = new Set(steps.flatMap((s) => [s.from, s.to]));
  const lanes = [...LANES];
  for (const id of used) if (!lanes.some((l) => l.id === id)) lanes.push({ id, label: id });
  return { lanes, steps };
}
