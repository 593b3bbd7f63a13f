import { createReadStream, existsSync, readFileSync, statSync, watch } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { ApiError } from '../../machinery/api-error.js';
import { parsePodLogOptions, validatePodLogOptions } from '../../machinery/query/pod-options.js';
import { parseCriLogLine } from '../runtime/process/cri-log-writer.js';

export interface LogOptions {
  follow: boolean;
  tailLines?: number;
  timestamps: boolean;
  sinceTime?: Date;
  limitBytes?: number;
}

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

/** Renders CRI log lines as `kubectl logs` shows them (optionally with RFC 3339 timestamps). */
export function renderLogLines(text: string, opts: LogOptions): string {
  let lines = text.split('\n').filter(Boolean).map(parseCriLogLine).filter((l) => l !== undefined);
  if (opts.sinceTime) lines = lines.filter((l) => l.time >= opts.sinceTime!);
  if (opts.tailLines !== undefined) lines = opts.tailLines === 0 ? [] : lines.slice(-opts.tailLines);
  return lines.map((l) => `${opts.timestamps ? `${l.timestamp} ` : ''}${l.text}${l.partial ? '' : '\n'}`).join('');
}

/**
 * Streams a container's CRI log file to the response; with `follow`, keeps
 * tailing until `stillRunning()` turns false or the client goes away.
 */
export async function streamLogs(path: string, opts: LogOptions, res: ServerResponse, stillRunning: () => boolean): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Transfer-Encoding': 'chunked' });
  const initial = existsSync(path) ? readFileSync(path, 'utf8') : '';
  let out = renderLogLines(initial, opts);
  if (opts.limitBytes !== undefined) out = out.slice(0, opts.limitBytes);
  res.write(out);
  if (!opts.follow) {
    res.end();
    return;
  }
  let offset = Buffer.byteLength(initial);
  let carry = '';
  const pump = async (): Promise<void> => {
    if (!existsSync(path)) return;
    const size = statSync(path).size;
    if (size < offset) offset = 0; // rotated
    if (size === offset) return;
    const chunk = await new Promise<string>((resolve, reject) => {
      let s = '';
      createReadStream(path, { start: offset, end: size - 1, encoding: 'utf8' }).on('data', (d) => (s += d)).on('end', () => resolve(s)).on('error', reject);
    });
    offset = size;
    const text = carry + chunk;
    const cut = text.lastIndexOf('\n') + 1;
    carry = text.slice(cut);
    res.write(renderLogLines(text.slice(0, cut), { ...opts, tailLines: undefined }));
  };
  await new Promise<void>((resolve) => {
    let busy = false;
    const tick = () => {
      if (busy) return;
      busy = true;
      pump().catch(() => undefined).finally(() => {
        busy = false;
        if (!stillRunning()) void pump().finally(finish);
      });
    };
    let watcher: ReturnType<typeof watch> | undefined;
    try {
      watcher = watch(path, tick);
    } catch {
      watcher = undefined;
    }
    const poll = setInterval(tick, 250);
    const finish = () => {
      clearInterval(poll);
      watcher?.close();
      res.end();
      resolve();
    };
    res.on('close', finish);
  });
}
