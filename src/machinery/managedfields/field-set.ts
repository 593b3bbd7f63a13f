/**
 * A set of field paths stored as a trie, like structured-merge-diff's
 * fieldpath.Set: at each level, `members` are the paths that end here and
 * `children` lead to deeper paths. A path can be both a member and a parent
 * (FieldsV1 writes that as `".": {}` inside the child).
 */
import { compareElements, elementToFieldsV1Key, fieldElement, type Path, type PathElement } from './path-element.js';

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

export class FieldSet {
  private readonly memberMap = new Map<string, PathElement>();
  private readonly childMap = new Map<string, Child>();
  private frozen = false;

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (mutates; sets built by callers are owned by them). */
  insert(path: Path): void {
    this.assertMutable();
    if (path.length === 0) return;
    const last = path[path.length - 1];
    this.parentOf(path, 0).memberMap.set(elementToFieldsV1Key(last), last);
  }

  private parentOf(path: Path, i: number): FieldSet {
    return i === path.length - 1 ? this : this.childFor(path[i]).parentOf(path, i + 1);
  }

  /**
   * insert() for walks that keep their path on a stack: `segs` are the path's
   * elements, a string standing for a field of that name (so the walk
   * allocates an element only for paths it inserts), and `keys` their
   * FieldsV1 keys, filled in here where missing and reused by later inserts.
   */
  insertStacked(segs: readonly (PathElement | string)[], keys: (string | undefined)[], i = 0): void {
    this.assertMutable();
    if (segs.length === 0) return;
    const seg = segs[i];
    const k = (keys[i] ??= typeof seg === 'string' ? `f:${seg}` : elementToFieldsV1Key(seg));
    if (i === segs.length - 1) {
      this.memberMap.set(k, typeof seg === 'string' ? fieldElement(seg) : seg);
      return;
    }
    let c = this.childMap.get(k);
    if (!c) {
      c = { pe: typeof seg === 'string' ? fieldElement(seg) : seg, set: new FieldSet() };
      this.childMap.set(k, c);
    }
    c.set.insertStacked(segs, keys, i + 1);
  }

  /** The child set under `pe`, created if missing. */
  childFor(pe: PathElement): FieldSet {
    this.assertMutable();
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

  /** One row per element at this level, sorted: its FieldsV1 key, whether it is a member and its non-empty child set. */
  entries(): { pe: PathElement; key: string; member: boolean; child?: FieldSet }[] {
    const rows: { pe: PathElement; key: string; member: boolean; child?: FieldSet }[] = [];
    for (const [key, pe] of this.memberMap) {
      const c = this.childMap.get(key);
      rows.push({ pe, key, member: true, child: c && !c.set.isEmpty() ? c.set : undefined });
    }
    for (const [key, c] of this.childMap) {
      if (this.memberMap.has(key) || c.set.isEmpty()) continue;
      rows.push({ pe: c.pe, key, member: false, child: c.set });
    }
    return rows.sort((a, b) => compareElements(a.pe, b.pe));
  }

  /** For decoders: adds the member whose FieldsV1 key (canonical) is `key`. */
  addMemberByKey(key: string, pe: PathElement): void {
    this.assertMutable();
    this.memberMap.set(key, pe);
  }

  /** For decoders: the child set under the element whose FieldsV1 key (canonical) is `key`, created if missing. */
  childByKey(key: string, pe: PathElement): FieldSet {
    this.assertMutable();
    let c = this.childMap.get(key);
    if (!c) {
      c = { pe, set: new FieldSet() };
      this.childMap.set(key, c);
    }
    return c.set;
  }

  /** For decoders: drops the child under `key` if it holds nothing. */
  dropEmptyChild(key: string): void {
    this.assertMutable();
    const c = this.childMap.get(key);
    if (c && c.set.isEmpty()) this.childMap.delete(key);
  }

  /**
   * Makes this set and everything below it immutable (the mutators throw), so
   * it can be shared: decoded sets are reused across writes (see
   * fields-v1-cache.ts). Operations on it still return new sets.
   */
  freeze(): this {
    if (this.frozen) return this;
    this.frozen = true;
    for (const c of this.childMap.values()) c.set.freeze();
    return this;
  }

  isFrozen(): boolean {
    return this.frozen;
  }

  /** Whether some path is a member of both sets (without building the intersection). */
  intersects(other: FieldSet): boolean {
    const [small, large] = this.memberMap.size <= other.memberMap.size ? [this.memberMap, other.memberMap] : [other.memberMap, this.memberMap];
    for (const k of small.keys()) if (large.has(k)) return true;
    for (const [k, c] of this.childMap) {
      const o = other.childMap.get(k);
      if (o && c.set.intersects(o.set)) return true;
    }
    return false;
  }

  /** Whether every member of this set is a member of `other` (without building the difference). */
  isSubsetOf(other: FieldSet): boolean {
    for (const k of this.memberMap.keys()) if (!other.memberMap.has(k)) return false;
    for (const [k, c] of this.childMap) {
      const o = other.childMap.get(k);
      if (o ? !c.set.isSubsetOf(o.set) : !c.set.isEmpty()) return false;
    }
    return true;
  }

  private assertMutable(): void {
    if (this.frozen) throw new Error('a frozen FieldSet cannot change');
  }

  // Drops empty children so equality and emptiness stay structural.
  private pruned(): FieldSet {
    for (const [k, c] of this.childMap) if (c.set.isEmpty()) this.childMap.delete(k);
    return this;
  }
}
