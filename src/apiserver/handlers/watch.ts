import type { KubeObject } from '../../api/object.js';
import { apiVersionOf } from '../../api/resource-info.js';
import { ApiError, internalError } from '../../machinery/api-error.js';
import { watchObjects, type WatchEventType } from '../registry/watch.js';
import { parseListOptions, validateListOptions } from '../../machinery/query/options.js';
import { selectionFrom } from '../selection.js';
import { renderWatchObject } from './render.js';
import { drained } from '../http/drain.js';
import { sharedCausedWatchLine, sharedWatchEvent, watchContentType, watchEventEncoder } from './watch-encoding.js';
import type { RequestScope } from './scope.js';
import { causeField } from '../trace/trace-query.js';
import type { WriteCauses } from '../trace/write-causes.js';

export interface WatchSettings {
  /** Upper bound for a watch without timeoutSeconds (upstream: random in [30, 60) minutes). */
  minRequestTimeoutSeconds: number;
  bookmarkIntervalMs: number;
  onWatchStart?: (resource: string) => () => void;
  /** Write causes, for skiff's watchers that ask for them (header `X-Skiff-Watch-Causes: true`). */
  causes?: WriteCauses;
}

/** The opt-in request header of skiff's informers: each event then carries the span that caused it. */
export const WATCH_CAUSES_HEADER = 'x-skiff-watch-causes';

/**
 * Streams watch events over a chunked response: newline-delimited JSON, or
 * length-prefixed protobuf WatchEvent frames when the client asked for protobuf.
 * Errors after the response started become an ERROR event, as upstream.
 */
export async function handleWatch(scope: RequestScope, settings: WatchSettings): Promise<void> {
  const { query, res } = scope;
  const opts = parseListOptions(query);
  validateListOptions(opts, true, true);
  const selection = selectionFrom(query, scope.store.strategy, scope.info.name || undefined);
  const rendering = scope.rendering;
  const bookmarks = opts.allowWatchBookmarks;
  // as upstream: no timeout or 0 picks one in [min, 2·min); a negative one ends the watch at once
  const timeoutSeconds = opts.timeoutSeconds ? Math.max(opts.timeoutSeconds, 0) : settings.minRequestTimeoutSeconds * (1 + Math.random());

  const controller = new AbortController();
  const abort = () => controller.abort();
  scope.signal.addEventListener('abort', abort, { once: true });
  const timer = setTimeout(abort, timeoutSeconds * 1000);
  const done = settings.onWatchStart?.(scope.resource.resource);

  res.writeHead(200, { 'Content-Type': watchContentType(rendering), 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();

  const causes = scope.req.headers[WATCH_CAUSES_HEADER] === 'true' ? settings.causes : undefined;
  let lastRv = opts.resourceVersion ?? '';
  let first = true;
  const sendLine = async (line: string | Buffer) => {
    if (res.writableEnded || res.destroyed) return;
    if (!res.write(line)) await drained(res, controller.signal);
  };
  const encodeEvent = watchEventEncoder(rendering);
  const send = (type: WatchEventType, object: unknown) => sendLine(encodeEvent(type, object));
  // Bookmarks carry the watch cache's resourceVersion, reported by the storage in order with the events
  // (every earlier event this watcher should see has been sent), so a quiet watcher's resume point moves on.
  let progressRv = 0;
  let progressSinceTick = false;
  const bookmark = () => {
    const rv = Math.max(progressRv, Number(lastRv) || 0);
    if (rv === 0) return;
    const obj: KubeObject = { kind: scope.resource.kind, apiVersion: apiVersionOf(scope.resource), metadata: { resourceVersion: String(rv) } };
    send('BOOKMARK', obj).catch(() => abort());
  };
  const onProgress = (rv: number) => {
    progressRv = Math.max(progressRv, rv);
    progressSinceTick = true;
    bookmark();
  };
  // a storage that reports no progress (or stalls) still gets a bookmark at the last event's resourceVersion
  const bookmarkTimer = bookmarks
    ? setInterval(() => {
        if (progressSinceTick) progressSinceTick = false;
        else bookmark();
      }, settings.bookmarkIntervalMs)
    : undefined;

  try {
    const events = watchObjects(scope.store, scope.info.namespace, {
      resourceVersion: opts.resourceVersion,
      filter: selection.filter,
      signal: controller.signal,
      sendInitialEvents: opts.sendInitialEvents,
      initialEventsEndBookmark: bookmarks,
      ...(bookmarks ? { onProgress, progressIntervalMs: settings.bookmarkIntervalMs } : {}),
    });
    for await (const ev of events) {
      if (controller.signal.aborted) break;
      lastRv = ev.object.metadata?.resourceVersion ?? lastRv;
      if (ev.type === 'BOOKMARK') {
        // the end of a watch-list's initial events: sent as the periodic bookmarks are
        await send('BOOKMARK', ev.object);
        continue;
      }
      if (rendering.kind === 'json' && causes) {
        const object = ev.object;
        await sendLine(sharedCausedWatchLine(ev.type, object, () => causeField(causes, object.metadata?.resourceVersion, scope.store.key(object.metadata?.namespace ?? '', object.metadata?.name ?? ''))));
      } else if (rendering.kind === 'json' || rendering.kind === 'protobuf') await sendLine(sharedWatchEvent(rendering, ev.type, ev.object));
      else await send(ev.type, renderWatchObject(scope, rendering, ev.object, first));
      first = false;
    }
  } catch (err) {
    if (!controller.signal.aborted) {
      const apiErr = ApiError.is(err) ? err : internalError(err instanceof Error ? err.message : String(err));
      await send('ERROR', apiErr.toStatus());
    }
  } finally {
    clearTimeout(timer);
    if (bookmarkTimer) clearInterval(bookmarkTimer);
    scope.signal.removeEventListener('abort', abort);
    controller.abort();
    done?.();
    if (!res.writableEnded) res.end();
  }
}
