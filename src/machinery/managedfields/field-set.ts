/**
 * A set of field paths stored as a trie, like structured-merge-diff's
 * fieldpath.Set: at each level, `members` are the paths that end here and
 * `children` lead to deeper paths. A path can be both a member and a parent
 * (FieldsV1 writes that as `".": {}` inside the child).
 */
import { compareElements, elementToFieldsV1Key, type Path, type PathElement } from './path-element.js';

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

export class FieldSet {
  private readonly memberMap = new Map<string, PathElement>();
  private readonly childMap = new Map<string, Child>();

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (mutates; sets built by callers are owned by them). */
  insert(path: Path): void {
    if (path.length === 0) return;
    const node = path.slice(0, -1).reduce<FieldSet>((n, pe) => n.childFor(pe), this);
    const last = path[path.length - 1];
    node.memberMap.set(elementToFieldsV1Key(last), last);
  }

  /** The child set under `pe`, created if missing. */
  childFor(pe: PathElement): FieldSet {
    const k = elementToFieldsV1Key(pe);
    let c = this.childMap.get(k);
    if (!c) {
      c = { pe, set: new FieldSet() };
      this.childMap.set(k, c);
    }
    return c.set;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    const parent = path.length === 1 ? this : this.descend(path.slice(0, -1));
    return !!parent && parent.memberMap.has(elementToFieldsV1Key(path[path.length - 1]));
  }

  /** The subtree under `path` (empty if none). */
  child(path: Path): FieldSet {
    return (path.length === 0 ? this : this.descend(path)) ?? new FieldSet();
  }

  private descend(path: Path): FieldSet | undefined {
    const next = this.childMap.get(elementToFieldsV1Key(path[0]))?.set;
    return next && path.length > 1 ? next.descend(path.slice(1)) : next;
  }

  isEmpty(): boolean {
    if (this.memberMap.size > 0) return false;
    for (const c of this.childMap.values()) if (!c.set.isEmpty()) return false;
    return true;
  }

  /** Whether `path` is a member or has members below it. */
  touches(path: Path): boolean {
    return this.has(path) || !this.child(path).isEmpty();
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const s of [this, other]) {
      for (const [k, pe] of s.memberMap) out.memberMap.set(k, pe);
      for (const [k, c] of s.childMap) {
        const prev = out.childMap.get(k);
        out.childMap.set(k, { pe: c.pe, set: prev ? prev.set.union(c.set) : c.set.union(new FieldSet()) });
      }
    }
    return out.pruned();
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.memberMap) if (other.memberMap.has(k)) out.memberMap.set(k, pe);
    for (const [k, c] of this.childMap) {
      const o = other.childMap.get(k);
      if (o) out.childMap.set(k, { pe: c.pe, set: c.set.intersection(o.set) });
    }
    return out.pruned();
  }

  /** Members of this set that are not members of `other` (children compared path by path). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.memberMap) if (!other.memberMap.has(k)) out.memberMap.set(k, pe);
    for (const [k, c] of this.childMap) {
      const o = other.childMap.get(k);
      out.childMap.set(k, { pe: c.pe, set: o ? c.set.difference(o.set) : c.set.union(new FieldSet()) });
    }
    return out.pruned();
  }

  /** Like difference, but a member of `other` also removes everything below it (upstream RecursiveDifference). */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.memberMap) if (!other.memberMap.has(k)) out.memberMap.set(k, pe);
    for (const [k, c] of this.childMap) {
      if (other.memberMap.has(k)) continue;
      const o = other.childMap.get(k);
      out.childMap.set(k, { pe: c.pe, set: o ? c.set.recursiveDifference(o.set) : c.set.union(new FieldSet()) });
    }
    return out.pruned();
  }

  /**
   * Makes every field-name parent a member too. Pruning uses it so that a
   * struct the applier filled, then stopped mentioning, can go away whole
   * (upstream EnsureNamedFieldsAreMembers).
   */
  withFieldParentsAsMembers(): FieldSet {
    const out = this.union(new FieldSet());
    out.promoteFieldParents();
    return out;
  }

  private promoteFieldParents(): void {
    for (const [k, c] of this.childMap) {
      if (c.pe.kind === 'field' && !c.set.isEmpty()) this.memberMap.set(k, c.pe);
      c.set.promoteFieldParents();
    }
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty();
  }

  /** Every member as a full path, in upstream's order. */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (s: FieldSet, prefix: PathElement[]) => {
      for (const { pe, member, child } of s.entries()) {
        if (member) out.push([...prefix, pe]);
        if (child) walk(child, [...prefix, pe]);
      }
    };
    walk(this, []);
    return out;
  }

  /** One row per element at this level, sorted: whether it is a member and its non-empty child set. */
  entries(): { pe: PathElement; member: boolean; child?: FieldSet }[] {
    const keys = new Set([...this.memberMap.keys(), ...this.childMap.keys()]);
    const rows: { pe: PathElement; member: boolean; child?: FieldSet }[] = [];
    for (const k of keys) {
      const c = this.childMap.get(k);
      const child = c && !c.set.isEmpty() ? c.set : undefined;
      const member = this.memberMap.has(k);
      if (!member && !child) continue;
      rows.push({ pe: this.memberMap.get(k) ?? c!.pe, member, child });
    }
    return rows.sort((a, b) => compareElements(a.pe, b.pe));
  }

  // Drops empty children so equality and emptiness stay structural.
  private pruned(): FieldSet {
    for (const [k, c] of this.childMap) if (c.set.isEmpty()) this.childMap.delete(k);
    return this;
  }
}
