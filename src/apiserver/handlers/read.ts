import { listEnvelopeGoForm } from '../../api/json/go-form.js';
import type { KubeObject } from '../../api/object.js';
import { writeBody, writeJsonParts } from '../http/respond.js';
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

/** `causes`: the side store of write causes, for skiff's informers that ask (header `X-Skiff-Watch-Causes: true`). */
const COMMA = Buffer.from(',');
const LIST_END = Buffer.from(']}');

export async function handleList(scope: RequestScope, writeCauses?: WriteCauses): Promise<void> {
  const { query } = scope;
  const opts = parseListOptions(query);
  validateListOptions(opts, false);
  const selection = selectionFrom(query, scope.store.strategy);
  const causes = scope.rendering.kind === 'json' && scope.req.headers[WATCH_CAUSES_HEADER] === 'true' ? writeCauses : undefined;
  const raw = scope.rendering.kind === 'json' && !selection.filter && !causes;
  const list = await scope.store.list(scope.info.namespace, {
    ...selection,
    raw,
    limit: opts.limit,
    continue: opts.continue,
    resourceVersion: opts.resourceVersion,
    resourceVersionMatch: opts.resourceVersionMatch,
  });
  if (list.rawItems) {
    // items are already JSON text: assemble the list around them
    const { items: _items, rawItems, ...head } = list;
    const prefix = JSON.stringify(listEnvelopeGoForm({ ...head, items: [] })).slice(0, -'"items":[]}'.length - 1);
    const parts: Uint8Array[] = [Buffer.from(`${prefix},"items":[`)];
    rawItems.forEach((item, i) => (i > 0 ? parts.push(COMMA, item) : parts.push(item)));
    parts.push(LIST_END);
    writeJsonParts(scope.res, 200, parts);
    return;
  }
  if (causes) {
    writeBody(scope.res, 200, { ...list, causes: listCauses(causes, list.items) });
    return;
  }
  writeBody(scope.res, 200, ...renderList(scope, list));
}

export type { KubeObject };
