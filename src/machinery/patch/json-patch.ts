import { parseArrayIndex, parseJsonPointer } from './json-pointer.js';
import { cloneJson, getOwn, isJsonObject, jsonEqual, setOwn, type JsonObject, type JsonValue } from './json-value.js';
import { PatchError } from './patch-error.js';

/** One RFC 6902 operation as sent on the wire. */
export interface JsonPatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

export interface JsonPatchOptions {
  /** Cap on the total JSON size copied by `copy` operations, against patches that grow exponentially. */
  maxCopyBytes?: number;
}

const DEFAULT_MAX_COPY_BYTES = 3 * 1024 * 1024;

/** Checks the shape of a decoded JSON Patch body; a wrong shape is a 400. */
export function decodeJsonPatch(patch: unknown): JsonPatchOperation[] {
  if (!Array.isArray(patch)) {
    throw new PatchError('InvalidPatch', `json: cannot unmarshal ${jsonKind(patch)} into Go value of type jsonpatch.Patch`);
  }
  return patch.map((op) => {
    if (!isJsonObject(op)) throw new PatchError('InvalidPatch', `json: cannot unmarshal ${jsonKind(op)} into Go value of type jsonpatch.Operation`);
    return op as unknown as JsonPatchOperation;
  });
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}

/**
 * Applies an RFC 6902 JSON Patch to a copy of `doc`; `doc` itself is never
 * modified. Operations that do not apply throw PatchError('PatchFailed') with
 * messages worded like the json-patch library upstream uses.
 */
export function applyJsonPatch(doc: unknown, patch: unknown, options: JsonPatchOptions = {}): JsonValue {
  const ops = decodeJsonPatch(patch);
  const target = new Target(cloneJson(doc), options.maxCopyBytes ?? DEFAULT_MAX_COPY_BYTES);
  for (const op of ops) target.apply(op);
  return target.root;
}

const OPERATION_KINDS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
type OperationKind = (typeof OPERATION_KINDS)[number];

function isOperationKind(kind: string): kind is OperationKind {
  return (OPERATION_KINDS as readonly string[]).includes(kind);
}

/** A missing or unusable location, wrapped the way upstream's errors read. */
function missing(message: string): PatchError {
  return new PatchError('PatchFailed', `${message}: missing value`);
}

class Target {
  private copied = 0;

  constructor(
    public root: JsonValue,
    private readonly maxCopyBytes: number,
  ) {}

  apply(op: JsonPatchOperation): void {
    const kind = typeof op.op === 'string' ? op.op : 'unknown';
    if (!isOperationKind(kind)) throw new PatchError('PatchFailed', `Unexpected kind: ${kind}`);
    if (typeof op.path !== 'string') throw missing(`${kind} operation failed to decode path`);
    const path = parseJsonPointer(op.path);
    switch (kind) {
      case 'add':
        return this.add(path, op.path, this.value(op, kind), kind);
      case 'remove':
        this.remove(path, op.path);
        return;
      case 'replace':
        return this.replace(path, op.path, this.value(op, kind));
      case 'test':
        return this.test(path, op.path, this.value(op, kind));
      default:
        return this.moveOrCopy(kind, op, path);
    }
  }

  private value(op: JsonPatchOperation, kind: string): JsonValue {
    if (!Object.hasOwn(op, 'value')) throw missing(`${kind} operation has no value`);
    return cloneJson(op.value);
  }

  /** The container holding the last token of `path`, if the path leads into one. */
  private parent(path: string[]): JsonValue[] | JsonObject | undefined {
    const found = this.get(path.slice(0, -1));
    return Array.isArray(found) || isJsonObject(found) ? found : undefined;
  }

  private get(path: string[]): JsonValue | undefined {
    let node: JsonValue | undefined = this.root;
    for (const token of path) {
      if (Array.isArray(node)) {
        const i = parseArrayIndex(token);
        node = i === undefined ? undefined : node[i];
      } else if (isJsonObject(node)) {
        node = getOwn(node, token);
      } else {
        return undefined;
      }
    }
    return node;
  }

  private add(path: string[], raw: string, value: JsonValue, kind: string): void {
    if (path.length === 0) {
      this.root = value;
      return;
    }
    const parent = this.parent(path);
    if (!parent) throw missing(`${kind} operation does not apply: doc is missing path: ${JSON.stringify(raw)}`);
    const key = path[path.length - 1];
    if (!Array.isArray(parent)) return setOwn(parent, key, value);
    if (key === '-') {
      parent.push(value);
      return;
    }
    const i = parseArrayIndex(key);
    if (i === undefined || i > parent.length) throw invalidIndex(key);
    parent.splice(i, 0, value);
  }

  private remove(path: string[], raw: string): JsonValue {
    const parent = path.length === 0 ? undefined : this.parent(path);
    if (!parent) throw missing(`remove operation does not apply: doc is missing path: ${JSON.stringify(raw)}`);
    const key = path[path.length - 1];
    if (Array.isArray(parent)) {
      const i = parseArrayIndex(key);
      if (i === undefined || i >= parent.length) throw invalidIndex(key, `error in remove for path: '${raw}': `);
      return parent.splice(i, 1)[0];
    }
    if (!Object.hasOwn(parent, key)) throw missing(`error in remove for path: '${raw}': Unable to remove nonexistent key: ${key}`);
    const removed = parent[key];
    delete parent[key];
    return removed;
  }

  private replace(path: string[], raw: string, value: JsonValue): void {
    if (path.length === 0) {
      this.root = value;
      return;
    }
    const parent = this.parent(path);
    if (!parent) throw missing(`replace operation does not apply: doc is missing path: ${raw}`);
    const key = path[path.length - 1];
    if (Array.isArray(parent)) {
      const i = parseArrayIndex(key);
      if (i === undefined || i >= parent.length) throw invalidIndex(key);
      parent[i] = value;
      return;
    }
    if (!Object.hasOwn(parent, key)) throw missing(`replace operation does not apply: doc is missing key: ${raw}`);
    setOwn(parent, key, value);
  }

  private test(path: string[], raw: string, expected: JsonValue): void {
    if (path.length > 0 && !this.parent(path)) throw missing(`test operation does not apply: is missing path: ${raw}`);
    const actual = this.get(path);
    // As upstream, an absent member tests equal to null.
    if (jsonEqual(actual ?? null, expected)) return;
    throw new PatchError('PatchFailed', `testing value ${raw} failed: test failed`);
  }

  private moveOrCopy(kind: 'move' | 'copy', op: JsonPatchOperation, path: string[]): void {
    if (typeof op.from !== 'string') throw missing(`${kind} operation failed to decode from`);
    const from = parseJsonPointer(op.from);
    const value = this.get(from);
    if (value === undefined) throw missing(`${kind} operation does not apply: doc is missing from path: ${op.from}`);
    if (kind === 'copy') {
      this.copied += JSON.stringify(value).length;
      if (this.copied > this.maxCopyBytes) {
        throw new PatchError(
          'PatchFailed',
          `Unable to complete the copy, the accumulated size increase of copy is ${this.copied}, exceeding the limit ${this.maxCopyBytes}`,
        );
      }
      return this.add(path, op.path, cloneJson(value), kind);
    }
    if (op.from === op.path) return;
    if (op.path.startsWith(`${op.from}/`)) {
      throw new PatchError('PatchFailed', `move operation does not apply: ${op.path} is a child of ${op.from}`);
    }
    this.remove(from, op.from);
    this.add(path, op.path, value, kind);
  }
}

function invalidIndex(token: string, prefix = ''): PatchError {
  return new PatchError('PatchFailed', `${prefix}Unable to access invalid index: ${token}: invalid index referenced`);
}
