import type { KubeList, KubeObject } from '../../api/object.js';
import { apiVersionOf } from '../../api/resource-info.js';
import { badRequest } from '../../machinery/api-error.js';
import { FutureRevisionError } from '../../storage/errors.js';
import type { KeyValue } from '../../storage/storage.js';
import { decodeObject } from './codec.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import type { ListParams, StoreContext } from './store-context.js';
import { rethrowStorageError } from './storage-errors.js';

/**
 * Lists objects: paged by `limit` and `continue`, at the revision the
 * resourceVersion parameters ask for. With `raw` (and no filter, or one
 * that tests stored objects: `kvFilter`) the items come back as their
 * stored KeyValues in `rawKvs` instead of `items`, never parsed per list:
 * the fast path for JSON and protobuf lists, which send each object's bytes
 * as encoded once per KeyValue (see codec.ts).
 */
export async function listObjects(ctx: StoreContext, namespace: string, params: ListParams & { raw?: boolean }): Promise<RawList> {
  const prefix = ctx.prefix(namespace);
  let revision = 0;
  let startAfter: string | undefined;
  if (params.continue) {
    const token = decodeContinue(params.continue);
    revision = token.rv;
    startAfter = prefix + token.start;
  } else {
    revision = await listRevision(ctx, params);
  }
  const limit = params.limit && params.limit > 0 ? params.limit : undefined;
  const items: KubeObject[] = [];
  const rawKvs: KeyValue[] = [];
  // a filtered list stays raw when its filter can test stored objects as they are
  const raw = params.raw === true && (!params.filter || params.kvFilter !== undefined);
  const kvFilter = params.filter ? params.kvFilter : undefined;
  let more = false;
  let lastKey = '';
  let remaining: number | undefined;
  for (;;) {
    const page = await ctx.storage
      .list(prefix, { revision, limit: limit ? Math.max(limit - items.length - rawKvs.length, 1) : undefined, startAfter })
      .catch(rethrowStorageError({ verb: 'list', continuing: Boolean(params.continue) }));
    revision = page.revision;
    let i = 0;
    for (; i < page.kvs.length && !(limit && items.length + rawKvs.length >= limit); i++) {
      const kv = page.kvs[i];
      lastKey = kv.key;
      if (raw) {
        if (!kvFilter || kvFilter(kv)) rawKvs.push(kv);
        continue;
      }
      const obj = decodeObject(kv);
      if (!params.filter || params.filter(obj)) items.push(obj);
    }
    more = i < page.kvs.length || page.more;
    remaining = page.remaining !== undefined ? page.remaining + (page.kvs.length - i) : undefined;
    if (!more || (limit && items.length + rawKvs.length >= limit)) break;
    startAfter = lastKey;
  }
  const metadata: KubeList['metadata'] = { resourceVersion: String(revision) };
  if (limit && more) {
    metadata.continue = encodeContinue({ rv: revision, start: lastKey.slice(prefix.length) });
    if (!params.filtered && remaining !== undefined) metadata.remainingItemCount = remaining;
  }
  const list = { apiVersion: apiVersionOf(ctx.info), kind: ctx.info.listKind, metadata, items };
  return raw ? { ...list, rawKvs } : list;
}

/** A list whose items may still be stored KeyValues (`rawKvs`, in order; `items` then empty). */
export type RawList = KubeList & { rawKvs?: KeyValue[] };

/** The revision a list without a continue token reads at (0: the current one). */
async function listRevision(ctx: Pick<StoreContext, 'storage' | 'clock'>, params: ListParams): Promise<number> {
  const rv = params.resourceVersion;
  if (rv === undefined || rv === '' || rv === '0') {
    if (params.resourceVersionMatch === 'Exact') throw badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
    return 0;
  }
  const n = parseResourceVersion(rv);
  if (params.resourceVersionMatch === 'Exact') return n;
  if (params.resourceVersionMatch && params.resourceVersionMatch !== 'NotOlderThan') {
    throw badRequest(`resourceVersionMatch: Unsupported value: "${params.resourceVersionMatch}": supported values: "Exact", "NotOlderThan"`);
  }
  await waitForRevision(ctx, n);
  return 0;
}

/** Waits (briefly) until the storage has reached a revision a client has seen elsewhere. */
export async function waitForRevision(ctx: Pick<StoreContext, 'storage' | 'clock'>, revision: number): Promise<void> {
  const deadline = ctx.clock.monotonic() + 3000;
  for (;;) {
    const current = await ctx.storage.currentRevision();
    if (current >= revision) return;
    if (ctx.clock.monotonic() > deadline) rethrowStorageError({ verb: 'other' })(new FutureRevisionError(revision, current));
    await ctx.clock.sleep(50);
  }
}

const MAX_UINT64 = 2n ** 64n - 1n;

export function parseResourceVersion(rv: string): number {
  if (!/^[0-9]+$/.test(rv)) throw badRequest(`invalid resource version "${rv}": strconv.ParseUint: parsing "${rv}": invalid syntax`);
  if (BigInt(rv) > MAX_UINT64) throw badRequest(`invalid resource version "${rv}": strconv.ParseUint: parsing "${rv}": value out of range`);
  return Number(rv);
}
