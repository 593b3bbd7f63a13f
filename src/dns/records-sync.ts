import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { ENDPOINT_SLICES, SERVICES } from '../api/resource-refs.js';
import { realClock, type Clock } from '../base/clock.js';
import { finalState, type DeletedFinalStateUnknown } from '../client/cache/deleted-final-state-unknown.js';
import { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import type { Client } from '../client/rest/client.js';
import type { Logger } from '../machinery/logger.js';
import type { AnswerTracer } from './answer-tracer.js';
import type { DnsIndex } from './dns-index.js';

export interface RecordsSyncOptions {
  client: Client;
  index: DnsIndex;
  logger: Logger;
  tracer?: AnswerTracer;
  clock?: Clock;
}

/**
 * Keeps the DNS index up to date: list-watches Services and EndpointSlices
 * and applies every change to the index at once (answers are read from it,
 * never from the API server).
 */
export class RecordsSync {
  private synced = false;
  private lastChangeSeconds: number;
  private readonly clock: Clock;

  constructor(private readonly o: RecordsSyncOptions) {
    this.clock = o.clock ?? realClock;
    this.lastChangeSeconds = Math.floor(this.clock.now() / 1000);
  }

  /** For /readyz: the first list of Services and EndpointSlices is in the index. */
  ready(): void {
    if (!this.synced) throw new Error('services and endpointslices not yet synced');
  }

  /** The SOA serial: the time of the last change, in seconds (as CoreDNS). */
  serial(): number {
    return this.lastChangeSeconds;
  }

  async run(signal: AbortSignal): Promise<void> {
    const informers = new SharedInformerFactory(this.o.client);
    const services = informers.forResource<Service>(SERVICES);
    const slices = informers.forResource<EndpointSlice>(ENDPOINT_SLICES);
    const { index, tracer } = this.o;
    const changed = (key: string | undefined): void => {
      if (key === undefined) return;
      this.lastChangeSeconds = Math.floor(this.clock.now() / 1000);
      tracer?.changed(key);
    };
    services.addEventHandler({
      onAdd: (s) => changed(index.setService(s)),
      onUpdate: (_, s) => changed(index.setService(s)),
      onDelete: (d: Service | DeletedFinalStateUnknown<Service>) => {
        const s = finalState(d);
        const key = index.deleteService(s.metadata?.namespace ?? '', s.metadata?.name ?? '');
        this.lastChangeSeconds = Math.floor(this.clock.now() / 1000);
        tracer?.forget(key);
      },
    });
    slices.addEventHandler({
      onAdd: (s) => changed(index.setSlice(s)),
      onUpdate: (_, s) => changed(index.setSlice(s)),
      onDelete: (d: EndpointSlice | DeletedFinalStateUnknown<EndpointSlice>) => changed(index.deleteSlice(finalState(d))),
    });
    informers.start(signal);
    try {
      if (!(await informers.waitForCacheSync(signal))) return;
      this.synced = true;
      this.o.logger.info('dns records synced', { services: services.lister.list().length, endpointSlices: slices.lister.list().length });
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } finally {
      await informers.shutdown();
    }
  }
}
