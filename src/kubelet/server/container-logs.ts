import { createReadStream, existsSync, readFileSync, statSync, watch } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { parseCriLogLine } from '../runtime/process/cri-log-writer.js';

export interface LogOptions {
  follow: boolean;
  tailLines?: number;
  timestamps: boolean;
  sinceTime?: Date;
  limitBytes?: number;
}

export function parseLogOptions(q: URLSearchParams): LogOptions {
  const tail = q.get('tailLines') ?? q.get('tail');
  const sinceSeconds = q.get('sinceSeconds');
  const sinceTime = q.get('sinceTime');
  const limit = q.get('limitBytes');
  return {
    follow: q.get('follow') === 'true' || q.get('follow') === '1',
    tailLines: tail !== null && tail !== '' && Number(tail) >= 0 ? Number(tail) : undefined,
    timestamps: q.get('timestamps') === 'true',
    sinceTime: sinceTime ? new Date(sinceTime) : sinceSeconds ? new Date(Date.now() - Number(sinceSeconds) * 1000) : undefined,
    limitBytes: limit ? Number(limit) : undefined,
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
