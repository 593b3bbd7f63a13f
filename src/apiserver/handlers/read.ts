import { listEnvelopeGoForm } from '../../api/json/go-form.js';
import type { KubeList, KubeObject } from '../../api/object.js';
import { apiVersionOf } from '../../api/resource-info.js';
import { encodeProtobufListParts, protobufMessageFor } from '../../api/protobuf/encode-protobuf-object.js';
import type { KeyValue } from '../../storage/storage.js';
import { RawJson } from '../audit/request-audit.js';
import { contentTypeOf, writeBody, writeJsonParts, writeProtobufParts } from '../http/respond.js';
import { encodedJsonBytes, encodedProtobufBytes } from '../registry/codec.js';
import { parseListOptions, validateListOptions } from '../../machinery/query/options.js';
import { selectionFrom } from '../selection.js';
import type { RequestScope } from './scope.js';
import { render, renderList } from './render.js';
import { listCauses } from '../trace/trace-query.js';
import type { WriteCauses } from '../trace/write-causes.js';
import { WATCH_CAUSES_HEADER } from './watch.js';

export async function handleGet(scope: RequestScope): Promise<void> {
  const obj = await scope.store.get(scope.info.namespace, scope.info.name);
  writeBody(scope.res, 200, ...render(scope, obj));
}

const COMMA = Buffer.from(',');
const LIST_END = Buffer.from(']}');

/** `causes`: the side store of write causes, for skiff's informers that ask (header `X-Skiff-Watch-Causes: true`). */
export async function handleList(scope: RequestScope, writeCauses?: WriteCauses): Promise<void> {
  const { query } = scope;
  const opts = parseListOptions(query);
  validateListOptions(opts, false);
  const selection = selectionFrom(query, scope.store.strategy);
  const causes = scope.rendering.kind === 'json' && scope.req.headers[WATCH_CAUSES_HEADER] === 'true' ? writeCauses : undefined;
  const itemMessage = scope.rendering.kind === 'protobuf' ? protobufMessageFor(apiVersionOf(scope.store.info), scope.store.info.kind)?.type : undefined;
  const raw = (scope.rendering.kind === 'json' || itemMessage !== undefined) && (!selection.filter || selection.kvFilter !== undefined) && !causes;
  const list = await scope.store.list(scope.info.namespace, {
    ...selection,
    raw,
    limit: opts.limit,
    continue: opts.continue,
    resourceVersion: opts.resourceVersion,
    resourceVersionMatch: opts.resourceVersionMatch,
  });
  if (list.rawKvs) {
    // each item is sent as the bytes encoded once per stored object (kept by the watch cache): the list is assembled around them
    const { items: _items, rawKvs, ...head } = list;
    const json = () => jsonListParts(head, rawKvs);
    if (itemMessage !== undefined) {
      const parts = encodeProtobufListParts(head.apiVersion, head.kind, head.metadata, rawKvs.map((kv) => encodedProtobufBytes(kv, itemMessage)));
      await writeProtobufParts(scope.res, 200, contentTypeOf(scope.rendering), parts, new RawJson(() => Buffer.concat(json()).toString('utf8')));
      return;
    }
    await writeJsonParts(scope.res, 200, json());
    return;
  }
  if (causes) {
    writeBody(scope.res, 200, { ...list, causes: listCauses(causes, list.items) });
    return;
  }
  writeBody(scope.res, 200, ...renderList(scope, list));
}

/** A JSON list around its items' stored bytes. */
function jsonListParts(head: Omit<KubeList, 'items'>, kvs: readonly KeyValue[]): Uint8Array[] {
  const prefix = JSON.stringify(listEnvelopeGoForm({ ...head, items: [] })).slice(0, -'"items":[]}'.length - 1);
  const parts: Uint8Array[] = [Buffer.from(`${prefix},"items":[`)];
  kvs.forEach((kv, i) => (i > 0 ? parts.push(COMMA, encodedJsonBytes(kv)) : parts.push(encodedJsonBytes(kv))));
  parts.push(LIST_END);
  return parts;
}

export type { KubeObject };
