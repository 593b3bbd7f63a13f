import type { ApiClient } from './api-client.js';
import { configMap, deployment, job, NAMESPACE, service, signatures, statefulSet } from './manifests.js';
import type { Rng } from './rng.js';
import { sleep } from './sleep.js';
import { signatureWith, type Json, type SignatureOf, type Writer } from './writer.js';

const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
export const DEPLOYMENTS = ['web-a', 'web-b', 'web-c'];
export const STATEFULSET = 'db';
const STATEFULSET_REPLICAS = 3;
const JOBS_KEPT = 3;
const SERVICES = 8;


const sig = {
  configMap: signatureWith(signatures.configMap),
  workload: signatureWith(signatures.workload),
  job: signatureWith(signatures.job),
  service: signatureWith(signatures.service),
};

interface Known {
  exists: boolean;
  rv?: string;
  uid?: string;
}

/**
 * The mixed workload: ConfigMap churn (creates, updates, deletes with
 * preconditions), Deployments scaled and rolled, a StatefulSet rolled,
 * Jobs created and cleaned up, Services of both types created and deleted.
 * Every write goes through the Writer, so its outcome is in the ledger.
 */
export class Workload {
  private seq = 0;
  private rev = 0;
  private jobs: string[] = [];

  constructor(
    private readonly runId: string,
    private readonly client: ApiClient,
    private readonly writer: Writer,
    private readonly rng: Rng,
  ) {}

  /** The namespace and the long-lived workloads; retried until acknowledged, since nothing works without them. */
  async setUp(signal: AbortSignal): Promise<void> {
    const ensure = async (collection: string, obj: Json, signatureOf: SignatureOf) => {
      const path = `${collection}/${(obj.metadata as { name: string }).name}`;
      for (let attempt = 0; !signal.aborted; attempt++) {
        const { outcome } = await this.writer.put('POST', path, obj, signatureOf);
        if (outcome === 'acknowledged') return;
        if (attempt > 50) throw new Error(`cannot create ${path}`);
        if ((await this.writer.read(path, signatureOf).catch(() => undefined)) !== undefined) return;
        await sleep(500, signal);
      }
    };
    await ensure('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }, () => 'namespace');
    for (const name of DEPLOYMENTS) await ensure(`/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, deployment(this.runId, name, 2), sig.workload);
    await ensure(`/apis/apps/v1/namespaces/${NAMESPACE}/statefulsets`, statefulSet(this.runId, STATEFULSET, STATEFULSET_REPLICAS), sig.workload);
  }

  /** Runs every loop until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([
      this.loop(signal, 120, 250, () => this.churnConfigMap()),
      this.loop(signal, 4000, 10_000, () => this.changeDeployment()),
      this.loop(signal, 25_000, 45_000, () => this.rollStatefulSet()),
      this.loop(signal, 12_000, 20_000, () => this.nextJob()),
      this.loop(signal, 2000, 5000, () => this.churnService()),
    ]);
  }

  private async loop(signal: AbortSignal, minMs: number, maxMs: number, step: () => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      await sleep(this.rng.int(minMs, maxMs), signal);
      if (signal.aborted) return;
      try {
        await step();
      } catch {
        // a read failed while a component was down: the next round tries again
      }
    }
  }

  private readonly configMaps = new Map<string, Known | undefined>();

  private async churnConfigMap(): Promise<void> {
    const name = `cm-${this.rng.int(0, 19)}`;
    const path = `${CONFIGMAPS}/${name}`;
    let known = this.configMaps.get(name);
    if (!known) {
      // never written, or the last write's outcome is unknown: read the truth first
      const obj = this.configMaps.has(name) ? await this.writer.read(path, sig.configMap, { exactVersion: true }) : undefined;
      known = obj ? { exists: true, rv: (obj.metadata as { resourceVersion: string }).resourceVersion } : { exists: false };
      if (obj) this.seq = Math.max(this.seq, Number((obj.data as { seq: string }).seq));
    }
    this.configMaps.set(name, undefined);
    if (!known.exists) {
      const { outcome, stored } = await this.writer.put('POST', path, configMap(name, ++this.seq), sig.configMap, { exactVersion: true, collection: CONFIGMAPS });
      if (outcome === 'acknowledged') this.configMaps.set(name, { exists: true, rv: (stored!.metadata as { resourceVersion: string }).resourceVersion });
    } else if (this.rng.chance(0.8)) {
      const body = configMap(name, ++this.seq);
      (body.metadata as Json).resourceVersion = known.rv;
      const { outcome, stored } = await this.writer.put('PUT', path, body, sig.configMap, { exactVersion: true, collection: CONFIGMAPS });
      if (outcome === 'acknowledged') this.configMaps.set(name, { exists: true, rv: (stored!.metadata as { resourceVersion: string }).resourceVersion });
    } else {
      const outcome = await this.writer.delete(path, { resourceVersion: known.rv }, sig.configMap);
      if (outcome === 'acknowledged') this.configMaps.set(name, { exists: false });
    }
  }

  /** GET, change, PUT with the read resourceVersion. */
  private async update(path: string, signatureOf: SignatureOf, change: (obj: Json) => void): Promise<void> {
    const obj = await this.writer.read(path, signatureOf);
    if (!obj) return;
    change(obj);
    await this.writer.put('PUT', path, obj, signatureOf);
  }

  private async changeDeployment(): Promise<void> {
    const name = this.rng.pick(DEPLOYMENTS);
    const scale = this.rng.chance(0.6);
    const replicas = this.rng.int(1, 3);
    const rev = ++this.rev;
    await this.update(`/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${name}`, sig.workload, (obj) => {
      const spec = obj.spec as { replicas: number; template: { metadata: { annotations: Record<string, string> } } };
      if (scale) spec.replicas = replicas;
      else spec.template.metadata.annotations['soak.skiff.dev/rev'] = String(rev);
    });
  }

  private async rollStatefulSet(): Promise<void> {
    const rev = ++this.rev;
    await this.update(`/apis/apps/v1/namespaces/${NAMESPACE}/statefulsets/${STATEFULSET}`, sig.workload, (obj) => {
      (obj.spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata.annotations['soak.skiff.dev/rev'] = String(rev);
    });
  }

  private async nextJob(): Promise<void> {
    const name = `job-${++this.rev}`;
    const path = `/apis/batch/v1/namespaces/${NAMESPACE}/jobs/${name}`;
    const { outcome } = await this.writer.put('POST', path, job(this.runId, name), sig.job);
    if (outcome !== 'refused') this.jobs.push(name);
    while (this.jobs.length > JOBS_KEPT) {
      const old = this.jobs[0]!;
      const oldPath = `/apis/batch/v1/namespaces/${NAMESPACE}/jobs/${old}`;
      const current = await this.writer.read(oldPath, sig.job);
      if (current) {
        const outcome = await this.writer.delete(oldPath, { uid: (current.metadata as { uid: string }).uid }, sig.job);
        if (outcome !== 'acknowledged') return;
      }
      this.jobs.shift();
    }
  }

  private async churnService(): Promise<void> {
    const name = `svc-${this.rng.int(0, SERVICES - 1)}`;
    const path = `/api/v1/namespaces/${NAMESPACE}/services/${name}`;
    const current = await this.writer.read(path, sig.service);
    if (!current) {
      await this.writer.put('POST', path, service(name, this.rng.chance(0.5), this.rng.pick(DEPLOYMENTS)), sig.service, { unforeseeable: true });
    } else if (!(current.metadata as { deletionTimestamp?: string }).deletionTimestamp) {
      await this.writer.delete(path, { uid: (current.metadata as { uid: string }).uid }, sig.service);
    }
  }

  /** The Jobs that should exist at the end. */
  get liveJobs(): readonly string[] {
    return this.jobs;
  }

  close(): void {
    this.client.close();
  }
}
