import type { ServerResponse } from 'node:http';
import { ApiError } from '../../machinery/api-error.js';
import { parsePodLogOptions, validatePodLogOptions } from '../../machinery/query/pod-options.js';
import { readContainerLogs, type LogOptions } from '../logs/container-log-reader.js';

export type { LogOptions };

/** Why the kubelet refused a log query: upstream answers 400 or 422 with a fixed JSON-ish text. */
export class LogQueryError extends Error {
  override readonly name = 'LogQueryError';
  constructor(readonly code: 400 | 422, message: string) {
    super(message);
  }
}

/**
 * The kubelet's `/containerLogs` query, read as upstream's kubelet reads it:
 * PodLogOptions through the parameter codec (`tail` is the old name of
 * `tailLines`, `tail=all` means no limit), then validated.
 */
export function parseLogOptions(query: URLSearchParams): LogOptions & { previous: boolean } {
  const q = new URLSearchParams(query);
  const tail = q.get('tail');
  if (tail) {
    if (tail === 'all') q.delete('tailLines');
    else q.set('tailLines', tail);
  }
  let o;
  try {
    o = parsePodLogOptions(q);
  } catch (err) {
    if (ApiError.is(err)) throw new LogQueryError(400, '{"message": "Unable to decode query."}');
    throw err;
  }
  try {
    validatePodLogOptions(o, '');
  } catch (err) {
    if (ApiError.is(err)) throw new LogQueryError(422, '{"message": "Invalid request."}');
    throw err;
  }
  return {
    follow: o.follow,
    previous: o.previous,
    tailLines: o.tailLines,
    timestamps: o.timestamps,
    sinceTime: o.sinceTime ?? (o.sinceSeconds !== undefined ? new Date(Date.now() - o.sinceSeconds * 1000) : undefined),
    limitBytes: o.limitBytes,
  };
}

/**
 * Streams a container's CRI log files to the response (see readContainerLogs);
 * with `follow`, keeps tailing until `stillRunning()` turns false or the
 * client goes away.
 */
export async function streamLogs(path: string, opts: LogOptions, res: ServerResponse, stillRunning: () => boolean): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Transfer-Encoding': 'chunked' });
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.on('close', onClose);
  try {
    await readContainerLogs(path, opts, (chunk) => res.write(chunk), opts.follow ? { stillRunning, signal: gone.signal } : undefined);
  } finally {
    res.off('close', onClose);
    res.end();
  }
}
