import { useEffect, useRef, useState } from 'preact/hooks';
import type { ObjectTrace } from '../../../src/trace/journey.js';
import { ApiFailure, apiGet } from '../api.js';
import { html } from '../html.js';
import { layoutJourney, type Step } from '../journey-layout.js';
import type { ObjectRef } from '../route.js';

const POLL_MS = 1500;
const LANE_WIDTH = 170;
const ROW_HEIGHT = 40;
const HEADER = 46;

function tracePath(ref: ObjectRef): string {
  const resource = ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
  const ns = ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  return `/apis/trace.skiff.dev/v1${ns}/${encodeURIComponent(resource)}/${encodeURIComponent(ref.name)}?limit=50`;
}

/** The object's journeys, polled while the page is open so a rollout draws itself. */
function useObjectTrace(ref: ObjectRef): { trace?: ObjectTrace; error?: string } {
  const [state, setState] = useState<{ trace?: ObjectTrace; error?: string }>({});
  useEffect(() => {
    const abort = new AbortController();
    const poll = async () => {
      while (!abort.signal.aborted) {
        try {
          const trace = await apiGet<ObjectTrace>(tracePath(ref), abort.signal);
          setState({ trace });
        } catch (err) {
          if (abort.signal.aborted) return;
          setState({ error: err instanceof ApiFailure ? err.message : String(err) });
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    };
    void poll();
    return () => abort.abort();
  }, [JSON.stringify(ref)]);
  return state;
}

function Arrow({ step, row, lanes, fresh }: { step: Step; row: number; lanes: string[]; fresh: boolean }) {
  const y = HEADER + row * ROW_HEIGHT + 24;
  const x1 = lanes.indexOf(step.from) * LANE_WIDTH + LANE_WIDTH / 2;
  const x2 = lanes.indexOf(step.to) * LANE_WIDTH + LANE_WIDTH / 2;
  const cls = ['step', step.kind, step.critical ? 'critical' : '', step.error ? 'failed' : '', fresh ? 'fresh' : ''].join(' ');
  const title = `${step.label}\n${step.detail}\n+${step.offsetMs.toFixed(1)} ms`;
  if (step.from === step.to) {
    return html`<g class=${cls} data-kind=${step.kind} data-lane=${step.from}>
      <title>${title}</title>
      <rect x=${x1 - 7} y=${y - 14} width="14" height="20" rx="3" />
      <text x=${x1 + 12} y=${y - 3} class="label">${step.label}</text>
      <text x=${x1 + 12} y=${y + 10} class="detail">${step.detail}</text>
    </g>`;
  }
  const left = Math.min(x1, x2);
  return html`<g class=${cls} data-kind=${step.kind} data-from=${step.from} data-to=${step.to}>
    <title>${title}</title>
    <line x1=${x1} y1=${y} x2=${x2} y2=${y} marker-end="url(#arrowhead)" />
    <text x=${left + 8} y=${y - 6} class="label">${step.label}</text>
    <text x=${left + 8} y=${y + 13} class="detail">${step.detail}</text>
  </g>`;
}

export function JourneyView({ objectRef }: { objectRef: ObjectRef }) {
  const { trace, error } = useObjectTrace(objectRef);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [stages, setStages] = useState(false);
  const seen = useRef(new Set<string>());
  if (error) return html`<p class="error">${error}</p>`;
  if (!trace) return html`<p class="empty">loading…</p>`;
  if (trace.traces.length === 0) return html`<p class="empty" data-testid="no-trace">${trace.message ?? 'no trace recorded for this object'}</p>`;
  // by default the journey that created the object (the seeds' walk), else the newest
  const created = trace.writes.find((w) => w.verb === 'create')?.traceId;
  const wanted = selected ?? created;
  const chosen = trace.traces.find((t) => t.traceId === wanted) ?? trace.traces[trace.traces.length - 1]!;
  const layout = layoutJourney(chosen, { stages });
  const laneIds = layout.lanes.map((l) => l.id);
  const height = HEADER + layout.steps.length * ROW_HEIGHT + 20;
  const width = laneIds.length * LANE_WIDTH + 260;
  const fresh = new Set(layout.steps.filter((s) => !seen.current.has(s.spanId)).map((s) => s.spanId));
  // remember what was drawn so only arrows that arrive later animate in
  queueMicrotask(() => layout.steps.forEach((s) => seen.current.add(s.spanId)));
  const writes = trace.writes.filter((w) => w.traceId === chosen.traceId);
  return html`
    <div class="journey-controls">
      <label>
        Journey
        <select data-testid="trace-select" value=${chosen.traceId} onChange=${(e: Event) => setSelected((e.target as HTMLSelectElement).value)}>
          ${trace.traces.map((t) => html`<option value=${t.traceId}>${new Date(t.start).toLocaleTimeString()} · ${t.spans[0]?.name ?? t.traceId} · ${t.spans.length} spans</option>`)}
        </select>
      </label>
      <label><input type="checkbox" checked=${stages} onChange=${(e: Event) => setStages((e.target as HTMLInputElement).checked)} /> API server stages</label>
      <span class="summary">${layout.steps.length} steps · ${chosen.durationMs.toFixed(0)} ms · writes of this object: ${writes.map((w) => `${w.verb} RV ${w.resourceVersion}`).join(', ') || 'none'}</span>
    </div>
    <div class="diagram">
      <svg data-testid="journey" width=${width} height=${height} viewBox=${`0 0 ${width} ${height}`} xmlns="http://www.w3.org/2000/svg">
        <defs>
          <marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" /></marker>
        </defs>
        ${layout.lanes.map(
          (lane, i) => html`<g class="lane" data-lane=${lane.id}>
            <rect x=${i * LANE_WIDTH + 8} y="6" width=${LANE_WIDTH - 16} height="28" rx="6" />
            <text x=${i * LANE_WIDTH + LANE_WIDTH / 2} y="25" text-anchor="middle">${lane.label}</text>
            <line x1=${i * LANE_WIDTH + LANE_WIDTH / 2} y1="34" x2=${i * LANE_WIDTH + LANE_WIDTH / 2} y2=${height} />
          </g>`,
        )}
        ${layout.steps.map((step, row) => html`<${Arrow} key=${step.spanId} step=${step} row=${row} lanes=${laneIds} fresh=${fresh.has(step.spanId)} />`)}
      </svg>
    </div>
  `;
}
