import { context, propagation, ROOT_CONTEXT, SpanKind, trace, TraceFlags, type SpanContext, type Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { BasicTracerProvider, ParentBasedSampler, ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { currentComponent } from './component-context.js';
import { SpanStore, StoreSpanProcessor, type SpanBatch } from './span-store.js';

export interface TracingOptions {
  /** Off: no context propagation, no spans, nothing stored (default on). */
  enabled?: boolean;
  /** Share of new traces recorded, 0..1 (default 1); a trace joined from a caller follows the caller's decision. */
  samplingRatio?: number;
  /** OTLP/HTTP traces endpoint (e.g. http://127.0.0.1:4318/v1/traces); unset: the built-in store only. */
  endpoint?: string;
  /** Bounds of the built-in store. */
  store?: { maxSpans?: number; maxAgeMs?: number };
}

interface TracingState {
  providers: Map<string, BasicTracerProvider>;
  resources: Map<string, Resource>;
  /** Every span processor: the built-in store's, then the exporters'. */
  processors: SpanProcessor[];
  /** The processors other than the built-in store's (OTLP). */
  exporters: SpanProcessor[];
  sampler: ParentBasedSampler;
  newProvider(component: string): BasicTracerProvider;
  newResource(component: string): Resource;
  parseTraceParent(value: string): SpanContext | null;
  /** Whether a new trace (no parent) with this id is recorded, as the sampler decides. */
  sampleRoot(traceId: string): boolean;
}

/** The process's built-in trace store: every component in this process records into it. */
export const spanStore = new SpanStore();

let state: TracingState | undefined;

/**
 * Turns tracing on for this process (once; later calls only change the store
 * bounds). Registers the AsyncLocalStorage context manager and the W3C
 * trace-context propagator globally, so clients inject `traceparent` from
 * whatever span is current. The OpenTelemetry SDK is loaded here, not when
 * this module is: a process that never traces (a test using `skiff/testing`,
 * a client) does not pay for it.
 */
export async function configureTracing(opts: TracingOptions = {}): Promise<void> {
  if (opts.store) spanStore.configure(opts.store);
  if (state || opts.enabled === false) return;
  const [{ AsyncLocalStorageContextManager }, core, sdk, { resourceFromAttributes }, otlp] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    opts.endpoint ? import('@opentelemetry/exporter-trace-otlp-http') : undefined,
  ]);
  if (state) return;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  const ratio = Math.min(Math.max(opts.samplingRatio ?? 1, 0), 1);
  const exporters: SpanProcessor[] = [];
  if (otlp && opts.endpoint) exporters.push(new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter({ url: opts.endpoint }), { scheduledDelayMillis: 1000 }));
  const processors: SpanProcessor[] = [new StoreSpanProcessor(spanStore), ...exporters];
  const sampler = new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio) });
  state = {
    providers: new Map(),
    resources: new Map(),
    processors,
    exporters,
    sampler,
    newProvider: (component) => new sdk.BasicTracerProvider({ resource: componentResource(component), sampler, spanProcessors: processors }),
    newResource: (component) => resourceFromAttributes({ 'service.name': component, 'service.namespace': 'skiff' }),
    parseTraceParent: core.parseTraceParent,
    // every trace at ratio 1 (the default), without asking the sampler per request
    sampleRoot: ratio >= 1 ? () => true : (traceId) => sampler.shouldSample(ROOT_CONTEXT, traceId, '', SpanKind.SERVER, {}, []).decision === sdk.SamplingDecision.RECORD_AND_SAMPLED,
  };
}

/** The resource (service.name) of one component's spans: one object per component, shared by its tracer and its span batches. */
export function componentResource(component: string): Resource {
  if (!state) throw new Error('tracing is off');
  let resource = state.resources.get(component);
  if (!resource) state.resources.set(component, (resource = state.newResource(component)));
  return resource;
}

/** Whether a new trace with this id is recorded (the configured sampling ratio); false while tracing is off. */
export function sampleNewTrace(traceId: string): boolean {
  return state ? state.sampleRoot(traceId) : false;
}

/**
 * Hands several finished spans of one trace to what records spans: the
 * built-in store keeps the batch as it is (expanded when read); exporters
 * get its spans one by one. The caller decided it is sampled.
 */
export function emitSpanBatch(batch: SpanBatch): void {
  if (!state) return;
  spanStore.addBatch(batch);
  for (const p of state.exporters) for (const span of batch.spans()) p.onEnd(span as Parameters<SpanProcessor['onEnd']>[0]);
}

/**
 * Hands a span that is already finished (see recordLeafSpan) to what records
 * spans: the built-in store and the OTLP exporter. Unsampled spans are dropped.
 */
export function emitFinishedSpan(span: ReadableSpan): void {
  if (!state || !(span.spanContext().traceFlags & TraceFlags.SAMPLED)) return;
  for (const p of state.processors) p.onEnd(span);
}

export function tracingEnabled(): boolean {
  return state !== undefined;
}

/** The tracer of one component (its spans carry service.name = component); a no-op tracer while tracing is off. */
export function tracerFor(component: string): Tracer {
  if (!state) return trace.getTracer('skiff');
  let provider = state.providers.get(component);
  if (!provider) {
    provider = state.newProvider(component);
    state.providers.set(component, provider);
  }
  return provider.getTracer('skiff');
}

/** The span context a W3C `traceparent` names (parsed by the SDK's propagator code); null while tracing is off or when malformed. */
export function parseTraceParentHeader(value: string): SpanContext | null {
  return state ? state.parseTraceParent(value) : null;
}

/** The tracer of the component the calling code runs as. */
export function componentTracer(): Tracer {
  return tracerFor(currentComponent());
}

/** Sends what is buffered for the OTLP endpoint. */
export async function flushTracing(): Promise<void> {
  if (!state) return;
  await Promise.all(state.processors.map((p) => p.forceFlush()));
}

/** Flushes and stops exporting; tracing stays configured (the process is ending). */
export async function shutdownTracing(): Promise<void> {
  if (!state) return;
  await Promise.all(state.processors.map((p) => p.shutdown()));
}
