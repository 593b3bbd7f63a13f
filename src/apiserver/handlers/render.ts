import type { KubeList, KubeObject } from '../../api/object.js';
import { buildTable } from '../tables/index.js';
import { writeBody, writeJsonText, type Rendering } from '../http/respond.js';
import { writtenJson } from '../registry/codec.js';
import type { RequestScope } from './scope.js';

type IncludeObject = 'None' | 'Metadata' | 'Object';

function includeObject(scope: RequestScope): IncludeObject {
  const v = scope.query.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

function partialMetadata(obj: KubeObject, version: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

/** A single object in the representation the client asked for. */
export function render(scope: RequestScope, obj: KubeObject): [unknown, Rendering] {
  const r = scope.rendering;
  if (r.kind === 'table') {
    const table = buildTable(scope.store.table, [obj], { now: scope.now(), includeObject: includeObject(scope), resourceVersion: obj.metadata?.resourceVersion });
    return [{ ...table, apiVersion: `meta.k8s.io/${r.version}` }, r];
  }
  if (r.kind === 'metadata') return [partialMetadata(obj, r.version), r];
  return [obj, r];
}

export function renderList(scope: RequestScope, list: KubeList): [unknown, Rendering] {
  const r = scope.rendering;
  if (r.kind === 'table') {
    const table = buildTable(scope.store.table, list.items, {
      now: scope.now(),
      includeObject: includeObject(scope),
      resourceVersion: list.metadata.resourceVersion,
      continue: list.metadata.continue,
      remainingItemCount: list.metadata.remainingItemCount,
    });
    return [{ ...table, apiVersion: `meta.k8s.io/${r.version}` }, r];
  }
  if (r.kind === 'metadata') {
    return [
      {
        kind: 'PartialObjectMetadataList',
        apiVersion: `meta.k8s.io/${r.version}`,
        metadata: list.metadata,
        items: list.items.map((o) => partialMetadata(o, r.version)),
      },
      r,
    ];
  }
  return [list, r];
}

/** One watch event's object in the requested representation. */
export function renderWatchObject(scope: RequestScope, r: Rendering, obj: KubeObject, first: boolean): unknown {
  if (r.kind === 'table') {
    const table = buildTable(scope.store.table, [obj], {
      now: scope.now(),
      includeObject: includeObject(scope),
      resourceVersion: obj.metadata?.resourceVersion,
      noHeaders: !first,
    });
    return { ...table, apiVersion: `meta.k8s.io/${r.version}` };
  }
  if (r.kind === 'metadata') return partialMetadata(obj, r.version);
  return obj;
}

/** Answers a write with its object: as JSON, the bytes just stored (no second encoding); otherwise rendered. */
export function writeObject(scope: RequestScope, code: number, obj: KubeObject): void {
  const json = scope.rendering.kind === 'json' ? writtenJson(obj) : undefined;
  if (json !== undefined) writeJsonText(scope.res, code, json);
  else writeBody(scope.res, code, ...render(scope, obj));
}
