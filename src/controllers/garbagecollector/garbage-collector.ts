import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Client } from '../../client/rest/client.js';
import type { ApiObject } from '../../client/rest/api-object.js';
import type { ResourceClient } from '../../client/rest/resource-client.js';
import type { Reconciler } from '../../client/controller/reconciler.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import type { GraphNode, OwnerGraph } from './owner-graph.js';
import type { OwnerKinds, OwnerResource } from './owner-kinds.js';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

type OwnerState = 'solid' | 'dangling' | 'waiting';

export interface GarbageCollectorOptions {
  client: Client;
  graph: OwnerGraph;
  /** Resolves owner references' kinds, custom resources included. */
  owners: OwnerKinds;
  /** Queues another object (by uid) for a look. */
  enqueue: (uid: string) => void;
}

/**
 * Reconciles one object of the owner graph (keyed by uid): an owner being
 * deleted with the `orphan` finalizer releases its dependents; one with
 * `foregroundDeletion` waits until its blocking dependents are gone; an
 * object whose owners are all gone (or all deleting in the foreground) is
 * deleted itself.
 */
export class GarbageCollector implements Reconciler {
  constructor(private readonly o: GarbageCollectorOptions) {}

  async reconcile(uid: string, signal: AbortSignal): Promise<void> {
    const node = this.o.graph.get(uid);
    if (!node) return;
    if (node.deletionTimestamp && node.finalizers.includes(ORPHAN_FINALIZER)) {
      await this.orphanDependents(node, signal);
      await this.removeFinalizer(node, ORPHAN_FINALIZER, signal);
      return;
    }
    if (node.deletionTimestamp && node.finalizers.includes(FOREGROUND_FINALIZER)) {
      const dependents = this.o.graph.dependents(uid);
      const blocking = dependents.filter((d) => d.owners.some((r) => r.uid === uid && r.blockOwnerDeletion === true));
      if (blocking.length === 0) await this.removeFinalizer(node, FOREGROUND_FINALIZER, signal);
      else for (const d of dependents) this.o.enqueue(d.uid);
      return;
    }
    if (node.owners.length === 0) return;
    const states = await Promise.all(node.owners.map(async (ref) => ({ ref, state: await this.ownerState(node, ref, signal) })));
    const solid = states.filter((s) => s.state === 'solid');
    const released = states.filter((s) => s.state !== 'solid').map((s) => s.ref.uid);
    if (solid.length > 0) {
      // Keep the object; drop references that would block or dangle.
      if (released.length > 0) await this.removeOwnerReferences(node, new Set(released), signal);
      return;
    }
    if (node.deletionTimestamp) return;
    const waiting = states.some((s) => s.state === 'waiting');
    const policy = waiting || node.finalizers.includes(FOREGROUND_FINALIZER) ? 'Foreground' : node.finalizers.includes(ORPHAN_FINALIZER) ? 'Orphan' : 'Background';
    try {
      await this.clientFor(node.resource, node.namespace).delete(node.name, { propagationPolicy: policy, preconditions: { uid }, signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** Whether the owner exists (trusting the graph, else asking the server, as the graph may lag). */
  private async ownerState(node: GraphNode, ref: OwnerReference, signal: AbortSignal): Promise<OwnerState> {
    const known = this.o.graph.get(ref.uid);
    if (known) return known.deletionTimestamp && known.finalizers.includes(FOREGROUND_FINALIZER) ? 'waiting' : 'solid';
    const info = await this.o.owners.resolve(ref.apiVersion, ref.kind, signal);
    // An owner of a kind nobody serves is assumed to exist: never delete on a guess.
    if (!info) return 'solid';
    if (info.namespaced && !node.namespace) return 'dangling';
    try {
      const owner = await this.clientFor(info, info.namespaced ? node.namespace : undefined).get(ref.name, { signal });
      if (owner.metadata?.uid !== ref.uid) return 'dangling';
      return owner.metadata?.deletionTimestamp && owner.metadata.finalizers?.includes(FOREGROUND_FINALIZER) ? 'waiting' : 'solid';
    } catch (err) {
      if (isNotFound(err)) return 'dangling';
      throw err;
    }
  }

  private async orphanDependents(owner: GraphNode, signal: AbortSignal): Promise<void> {
    await Promise.all(this.o.graph.dependents(owner.uid).map((d) => this.removeOwnerReferences(d, new Set([owner.uid]), signal)));
  }

  private async removeOwnerReferences(node: GraphNode, uids: ReadonlySet<string>, signal: AbortSignal): Promise<void> {
    // Remove from the end so earlier indexes stay valid; each test guards against a changed list.
    const ops = node.owners
      .map((r, i) => ({ r, i }))
      .filter(({ r }) => uids.has(r.uid))
      .reverse()
      .flatMap(({ r, i }) => [
        { op: 'test', path: `/metadata/ownerReferences/${i}/uid`, value: r.uid },
        { op: 'remove', path: `/metadata/ownerReferences/${i}` },
      ]);
    if (ops.length === 0) return;
    try {
      await this.clientFor(node.resource, node.namespace).patch(node.name, ops, 'json', { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private async removeFinalizer(node: GraphNode, finalizer: string, signal: AbortSignal): Promise<void> {
    const i = node.finalizers.indexOf(finalizer);
    if (i < 0) return;
    const ops = [
      { op: 'test', path: `/metadata/finalizers/${i}`, value: finalizer },
      { op: 'remove', path: `/metadata/finalizers/${i}` },
    ];
    try {
      await this.clientFor(node.resource, node.namespace).patch(node.name, ops, 'json', { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private clientFor(info: OwnerResource, namespace: string | undefined): ResourceClient<ApiObject> {
    const rc = this.o.client.resource<ApiObject>({ group: info.group, version: info.version, resource: info.resource });
    return info.namespaced && namespace ? rc.namespace(namespace) : rc;
  }
}
