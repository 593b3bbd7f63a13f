import type { IncomingMessage } from 'node:http';
import { tooLarge } from '../../machinery/api-error.js';
import { auditRequestBody } from '../audit/request-audit.js';

/** Upstream's limit on a request body (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

const limits = new WeakMap<IncomingMessage, number>();

/** Sets the body limit for one request (the server's --max-request-bytes); handlers just call readBody. */
export function setBodyLimit(req: IncomingMessage, limit: number): void {
  limits.set(req, limit);
}

/** Upstream's 413 (limitedReadBody): `Request entity too large: limit is 3145728`. */
export function bodyTooLarge(limit: number) {
  return tooLarge(`Request entity too large: limit is ${limit}`);
}

/** Reads the whole body, refusing (413) as soon as it passes the limit. */
export async function readBody(req: IncomingMessage, limit = limits.get(req) ?? MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw bodyTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      req.resume();
      throw bodyTooLarge(limit);
    }
    chunks.push(buf);
  }
  const body = Buffer.concat(chunks);
  auditRequestBody(req, body);
  return body;
}

/**
 * Reads and discards what is left of a request body, so an early error
 * answer does not reset a client still sending it. Gives up past `limit`
 * bytes or `timeoutMs`; false then: the connection should close.
 */
export async function drainRequest(req: IncomingMessage, limit = (limits.get(req) ?? MAX_BODY_BYTES) + 1024 * 1024, timeoutMs = 2000): Promise<boolean> {
  if (req.readableEnded || req.complete) return true;
  return new Promise<boolean>((resolve) => {
    let seen = 0;
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onEnd);
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) finish(false);
    };
    const onEnd = () => finish(req.complete);
    const timer = setTimeout(() => finish(false), timeoutMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onEnd);
    req.resume();
  });
}
