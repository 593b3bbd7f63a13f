import type { PersistentVolume, PersistentVolumeSpec, Pod } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../../api/object.js';
import { podReferences } from '../../../api/pod-references.js';
import type { Logger } from '../../../machinery/logger.js';
import type { ApiRegistry } from '../../api-registry.js';
import { runStoreInformer, type StoreEventHandler } from '../../registry/store-informer.js';
import type { NodeGraphKind, NodeGraphSource } from './node-graph.js';

type Edge = `${NodeGraphKind}/${string}/${string}`;

function edge(kind: NodeGraphKind, namespace: string, name: string): Edge {
  return `${kind}/${namespace}/${name}`;
}

/** The secrets a persistent volume's source names (upstream's VisitPVSecretNames), as namespace/name. */
function pvSecrets(spec: PersistentVolumeSpec | undefined): string[] {
  if (!spec) return [];
  const claimNs = spec.claimRef?.namespace ?? '';
  const out: string[] = [];
  const ref = (r: { name?: string; namespace?: string } | undefined, defaultNs = claimNs) => {
    if (r?.name) out.push(`${r.namespace || defaultNs}/${r.name}`);
  };
  const csi = spec.csi;
  ref(csi?.controllerPublishSecretRef);
  ref(csi?.nodeStageSecretRef);
  ref(csi?.nodePublishSecretRef);
  ref(csi?.controllerExpandSecretRef);
  ref(csi?.nodeExpandSecretRef);
  if (spec.azureFile?.secretName) out.push(`${spec.azureFile.secretNamespace || claimNs}/${spec.azureFile.secretName}`);
  ref(spec.cephfs?.secretRef);
  ref(spec.cinder?.secretRef);
  ref(spec.flexVolume?.secretRef);
  ref(spec.iscsi?.secretRef);
  ref(spec.rbd?.secretRef);
  ref(spec.scaleIO?.secretRef);
  ref(spec.storageos?.secretRef);
  return out;
}

interface PvEntry {
  /** The claim the volume is bound to, namespace/name. */
  claim?: string;
  secrets: string[];
}

/**
 * Upstream's node authorizer graph, kept in memory from watches of pods and
 * persistent volumes: node ← pod ← secret | configmap | pvc | serviceaccount,
 * node ← pod ← pvc ← pv ← secret. A pod counts once it is bound to a node;
 * its references are immutable, so an update only matters when its node or
 * uid changes.
 */
export class NodeGraph implements NodeGraphSource {
  private readonly pods = new Map<string, { uid: string; node: string; edges: Edge[] }>();
  /** Edge → node → how many of the node's pods have it. */
  private readonly edges = new Map<Edge, Map<string, number>>();
  private readonly pvs = new Map<string, PvEntry>();
  private readonly running: Promise<void>[] = [];
  private readonly synced: Promise<void>[] = [];

  relates(node: string, kind: NodeGraphKind, namespace: string, name: string): boolean {
    if (kind === 'pod') return this.pods.get(`${namespace}/${name}`)?.node === node;
    if (kind === 'persistentvolume') {
      const claim = this.pvs.get(name)?.claim;
      return claim !== undefined && this.direct(node, edge('persistentvolumeclaim', ...splitKey(claim)));
    }
    if (this.direct(node, edge(kind, namespace, name))) return true;
    if (kind !== 'secret') return false;
    const key = `${namespace}/${name}`;
    for (const pv of this.pvs.values()) {
      if (pv.claim && pv.secrets.includes(key) && this.direct(node, edge('persistentvolumeclaim', ...splitKey(pv.claim)))) return true;
    }
    return false;
  }

  private direct(node: string, e: Edge): boolean {
    return (this.edges.get(e)?.get(node) ?? 0) > 0;
  }

  addPod(pod: Pod): void {
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    const node = pod.spec?.nodeName ?? '';
    const uid = pod.metadata?.uid ?? '';
    const known = this.pods.get(key);
    if (known && known.node === node && known.uid === uid) return;
    if (known) this.deletePod(pod);
    if (!node) return;
    const ns = pod.metadata?.namespace ?? '';
    const refs = podReferences(pod);
    const edges: Edge[] = [
      ...[...refs.secrets].map((n) => edge('secret', ns, n)),
      ...[...refs.configMaps].map((n) => edge('configmap', ns, n)),
      ...[...refs.persistentVolumeClaims].map((n) => edge('persistentvolumeclaim', ns, n)),
      ...(refs.serviceAccount ? [edge('serviceaccount', ns, refs.serviceAccount)] : []),
    ];
    for (const e of edges) {
      let nodes = this.edges.get(e);
      if (!nodes) this.edges.set(e, (nodes = new Map()));
      nodes.set(node, (nodes.get(node) ?? 0) + 1);
    }
    this.pods.set(key, { uid, node, edges });
  }

  /**
   * Whether an update of the pod `namespace/name` cannot change the graph: it
   * is bound (a pod's node and references never change once set, and a pod
   * re-created under the same name is deleted first), so its status updates
   * need not be read.
   */
  podSettled(key: string): boolean {
    return this.pods.has(key);
  }

  deletePod(pod: Pod): void {
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    const known = this.pods.get(key);
    if (!known) return;
    this.pods.delete(key);
    for (const e of known.edges) {
      const nodes = this.edges.get(e);
      const n = (nodes?.get(known.node) ?? 0) - 1;
      if (n > 0) nodes!.set(known.node, n);
      else nodes?.delete(known.node);
      if (nodes?.size === 0) this.edges.delete(e);
    }
  }

  addPV(pv: PersistentVolume): void {
    const ref = pv.spec?.claimRef;
    this.pvs.set(pv.metadata?.name ?? '', { claim: ref?.name ? `${ref.namespace ?? ''}/${ref.name}` : undefined, secrets: pvSecrets(pv.spec) });
  }

  deletePV(pv: PersistentVolume): void {
    this.pvs.delete(pv.metadata?.name ?? '');
  }

  /** Follows pods and persistent volumes; `waitForSync()` resolves once both were listed. */
  start(registry: ApiRegistry, logger: Logger, signal: AbortSignal): void {
    const follow = (resource: string, add: (o: KubeObject) => void, remove: (o: KubeObject) => void, clear: () => void, settled?: (key: string) => boolean) => {
      const store = registry.lookup('', 'v1', resource);
      if (!store) throw new Error(`${resource} are not served`);
      let markSynced!: () => void;
      this.synced.push(new Promise<void>((r) => (markSynced = r)));
      const handler: StoreEventHandler = {
        replace(items) {
          clear();
          for (const item of items) add(item);
        },
        upsert: add,
        remove,
        // the graph keeps only names taken from the objects
        readOnly: true,
        ...(settled ? { settled } : {}),
      };
      this.running.push(runStoreInformer(store, handler, { logger, signal, onSynced: () => markSynced() }));
    };
    follow(
      'pods',
      (o) => this.addPod(o as Pod),
      (o) => this.deletePod(o as Pod),
      () => {
        this.pods.clear();
        this.edges.clear();
      },
      (key) => this.podSettled(key),
    );
    follow('persistentvolumes', (o) => this.addPV(o as PersistentVolume), (o) => this.deletePV(o as PersistentVolume), () => this.pvs.clear());
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.synced);
  }

  async stopped(): Promise<void> {
    await Promise.all(this.running);
  }
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}
