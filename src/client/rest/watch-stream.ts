import type { Readable } from 'node:stream';
import type { ApiObject } from './api-object.js';
import type { WatchEvent } from './watch-event.js';
import { NetworkError } from './network-error.js';

/**
 * Turns a watch response (newline-delimited JSON, chunked) into events. Ends
 * when the server closes the stream or the signal aborts; a connection cut
 * mid-way throws NetworkError so the caller can resume from its last
 * resourceVersion.
 */
export async function* watchStream<T extends ApiObject>(body: Readable, signal?: AbortSignal): AsyncGenerator<WatchEvent<T>> {
  const onAbort = (): void => {
    body.destroy();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let buffered = '';
  try {
    body.setEncoding('utf8');
    for await (const chunk of body as AsyncIterable<string>) {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line) yield JSON.parse(line) as WatchEvent<T>;
      }
    }
    const rest = buffered.trim();
    if (rest) yield JSON.parse(rest) as WatchEvent<T>;
  } catch (err) {
    if (signal?.aborted) return;
    if (err instanceof SyntaxError) throw err;
    throw new NetworkError(`watch stream: ${(err as Error).message}`, (err as NodeJS.ErrnoException).code, { cause: err });
  } finally {
    signal?.removeEventListener('abort', onAbort);
    body.destroy();
  }
}
