import type { ObjectMeta as ReadonlyObjectMeta, ListMeta as ReadonlyListMeta } from 'kubernetes-types/meta/v1.js';

/** kubernetes-types declares every field readonly; the server builds objects, so it needs them writable. */
export type DeepMutable<T> = T extends readonly (infer U)[]
  ? DeepMutable<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: DeepMutable<T[K]> }
    : T;

export type ObjectMeta = DeepMutable<ReadonlyObjectMeta>;
export type ListMeta = DeepMutable<ReadonlyListMeta>;

/** Any Kubernetes object as it travels as JSON: typed metadata, the rest open. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/** Views an object as a typed kind (e.g. `asKind<Pod>(obj)`); no runtime check. */
export function asKind<T>(obj: KubeObject): DeepMutable<T> {
  return obj as unknown as DeepMutable<T>;
}

/** The reverse of asKind. */
export function asObject<T>(obj: T): KubeObject {
  return obj as unknown as KubeObject;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}


/** `group/version`, or just `version` for the core group. */
export function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** Splits an apiVersion into group and version. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
