import type { IncomingMessage } from 'node:http';
import { tooLarge } from '../../machinery/api-error.js';

/** Upstream's limit on a request body (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Reads the whole body, refusing (413) as soon as it passes the limit. */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw tooLarge(`the request body is too large: ${declared} bytes, limit is ${limit}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      req.resume();
      throw tooLarge(`the request body is too large: more than ${limit} bytes`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}
