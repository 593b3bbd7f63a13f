import type { ApiClient } from './api-client.js';
import { NAMESPACE, signatures } from './manifests.js';
import type { SupervisedProcess } from './supervised-process.js';
import { NO_SPACE, signatureWith, type Json, type Writer } from './writer.js';

const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const PROBE_BYTES = 512 * 1024;
const MAX_PROBES = 24;
const sig = signatureWith(signatures.configMap);

/** What the writes made while a disk was full saw. */
export interface DiskFullObservation {
  acknowledged: number;
  /** Refused with the storage's NOSPACE in a 5xx Status. */
  refusedForSpace: number;
  /** Any other answer (status 0: none: a timeout or a reset). */
  other: number[];
  /** /readyz of the API server answered non-200 after a refusal; undefined: not asked. */
  notReady?: boolean;
}

/**
 * Makes a full disk show: while it is full, creates large ConfigMaps (so
 * SQLite's WAL or etcd's backend needs new blocks soon) through the Writer,
 * so each outcome is in the ledger like any other write, until one is
 * refused for lack of space; then asks the API server's /readyz. After the
 * disk recovered, deletes the probes it created.
 */
export class DiskProbe {
  private seq = 0;
  private readonly created: { path: string; uid: string }[] = [];

  constructor(
    private readonly client: ApiClient,
    private readonly writer: Writer,
  ) {}

  async whileFull(target: SupervisedProcess, until: number, apiPort: () => number | undefined): Promise<DiskFullObservation> {
    const seen: DiskFullObservation = { acknowledged: 0, refusedForSpace: 0, other: [] };
    for (let n = 0; n < MAX_PROBES && Date.now() < until; n++) {
      const name = `disk-probe-${++this.seq}`;
      const path = `${CONFIGMAPS}/${name}`;
      const body: Json = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { seq: `probe-${this.seq}`, blob: 'd'.repeat(PROBE_BYTES) } };
      const { outcome, status, stored } = await this.writer.put('POST', path, body, sig);
      if (outcome === 'acknowledged') {
        seen.acknowledged++;
        this.created.push({ path, uid: (stored!.metadata as { uid: string }).uid });
        continue;
      }
      if (status >= 500 && NO_SPACE.test(String(stored?.message ?? ''))) {
        seen.refusedForSpace++;
        if (target.kind === 'apiserver') {
          const port = apiPort();
          const ready = await this.client.request('GET', '/readyz', undefined, { port, timeoutMs: 10_000 }).catch(() => undefined);
          if (ready) seen.notReady = ready.status !== 200;
        }
        break;
      }
      seen.other.push(status);
    }
    return seen;
  }

  /** Deletes the probes created so far (uid preconditions); those whose delete is not acknowledged are left to the namespace's deletion. */
  async cleanUp(): Promise<void> {
    const left: typeof this.created = [];
    for (const p of this.created) {
      const outcome = await this.writer.delete(p.path, { uid: p.uid }, sig);
      if (outcome !== 'acknowledged' && outcome !== 'refused') left.push(p);
    }
    this.created.splice(0, this.created.length, ...left);
  }
}

/**
 * What a disk-full fault on an API server's SQLite must not do (the issue's
 * expected behaviour): the server crashing, a write answered with anything
 * but success or a 5xx (a 4xx other than throttling), or /readyz still ok
 * after a write was refused for lack of space. etcd members are etcd's
 * business: one dying of a full disk is counted, not a violation.
 */
export function diskFullViolations(targetKind: string, seen: DiskFullObservation & { exits: number }): string[] {
  if (targetKind !== 'apiserver') return [];
  const out: string[] = [];
  if (seen.exits > 0) out.push(`the API server exited ${seen.exits} time(s) while its disk was full`);
  const wrong = seen.other.filter((s) => s >= 400 && s < 500 && s !== 429);
  if (wrong.length) out.push(`writes under a full disk answered ${wrong.join(', ')} instead of a 5xx Status`);
  if (seen.notReady === false) out.push('/readyz answered ok while writes were refused for lack of space');
  return out;
}
