import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { ApiObject } from '../../client/rest/api-object.js';
import type { ResourceInfo } from '../../api/resource-info.js';

/** One object the collector knows about. */
export interface GraphNode {
  uid: string;
  resource: ResourceInfo;
  namespace?: string;
  name: string;
  owners: readonly OwnerReference[];
  deletionTimestamp?: string;
  finalizers: readonly string[];
}

/**
 * The owner graph: every object by uid plus, per owner uid, the uids of the
 * objects naming it in ownerReferences (the owner need not exist: that is
 * what makes a reference dangling).
 */
export class OwnerGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependentsOf = new Map<string, Set<string>>();

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Adds or refreshes an object; returns its previous node. */
  upsert(obj: ApiObject, resource: ResourceInfo): GraphNode | undefined {
    const m = obj.metadata ?? {};
    const uid = m.uid ?? '';
    const previous = this.nodes.get(uid);
    const node: GraphNode = {
      uid,
      resource,
      namespace: m.namespace,
      name: m.name ?? '',
      owners: m.ownerReferences ?? [],
      deletionTimestamp: m.deletionTimestamp,
      finalizers: m.finalizers ?? [],
    };
    if (previous) this.unlink(previous);
    this.nodes.set(uid, node);
    for (const ref of node.owners) {
      let set = this.dependentsOf.get(ref.uid);
      if (!set) this.dependentsOf.set(ref.uid, (set = new Set()));
      set.add(uid);
    }
    return previous;
  }

  remove(uid: string): GraphNode | undefined {
    const node = this.nodes.get(uid);
    if (!node) return undefined;
    this.unlink(node);
    this.nodes.delete(uid);
    return node;
  }

  /** Objects that name `uid` as an owner and are known. */
  dependents(uid: string): GraphNode[] {
    return [...(this.dependentsOf.get(uid) ?? [])].map((d) => this.nodes.get(d)).filter((n): n is GraphNode => !!n);
  }

  private unlink(node: GraphNode): void {
    for (const ref of node.owners) {
      const set = this.dependentsOf.get(ref.uid);
      set?.delete(node.uid);
      if (set?.size === 0) this.dependentsOf.delete(ref.uid);
    }
  }
}
