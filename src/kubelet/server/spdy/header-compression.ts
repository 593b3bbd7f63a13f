import zlib from 'node:zlib';
import { SPDY3_DICTIONARY } from './spdy-dictionary.js';

/**
 * One direction of SPDY/3 header compression: a single zlib stream for the
 * whole connection, primed with the SPDY dictionary, flushed (Z_SYNC_FLUSH) at
 * the end of every header block so each block is decodable on arrival.
 * Calls are queued, so blocks keep their order.
 */
export class HeaderCodec {
  private readonly stream: zlib.Deflate | zlib.Inflate;
  private queue: Promise<unknown> = Promise.resolve();
  private chunks: Buffer[] = [];
  private failure?: Error;

  constructor(direction: 'compress' | 'decompress') {
    this.stream = direction === 'compress'
      ? zlib.createDeflate({ dictionary: SPDY3_DICTIONARY, level: zlib.constants.Z_DEFAULT_COMPRESSION })
      : zlib.createInflate({ dictionary: SPDY3_DICTIONARY });
    this.stream.on('data', (d: Buffer) => this.chunks.push(d));
    this.stream.on('error', (err) => (this.failure = err));
  }

  /** Compresses or decompresses one header block. */
  process(block: Buffer): Promise<Buffer> {
    const run = () =>
      new Promise<Buffer>((resolve, reject) => {
        if (this.failure) return reject(this.failure);
        this.chunks = [];
        this.stream.write(block);
        this.stream.flush(zlib.constants.Z_SYNC_FLUSH, () => {
          if (this.failure) return reject(this.failure);
          const out = Buffer.concat(this.chunks);
          this.chunks = [];
          resolve(out);
        });
      });
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  close(): void {
    this.stream.destroy();
  }
}
