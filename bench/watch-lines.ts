import type { IncomingMessage } from 'node:http';

/**
 * Reads a JSON watch response line by line and calls `onEvent` with each
 * event's resourceVersion and its arrival time (`now()` when its chunk came
 * in); bookmarks are not events.
 */
export function onWatchEvents(res: IncomingMessage, now: () => number, onEvent: (rv: number, at: number) => void): void {
  let buffered = '';
  res.on('data', (chunk: Buffer) => {
    const at = now();
    buffered += chunk.toString();
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const rv = /"resourceVersion":"(\d+)"/.exec(line);
      if (rv && !line.startsWith('{"type":"BOOKMARK"')) onEvent(Number(rv[1]), at);
    }
  });
}
