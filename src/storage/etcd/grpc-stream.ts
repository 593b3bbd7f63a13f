import type { ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';
import { GrpcCode, GrpcError } from './grpc-error.js';

/** Pause reading from the server once this many decoded messages wait for the consumer. */
const HIGH_WATER = 64;

type Waiter = { resolve(r: IteratorResult<Uint8Array>): void; reject(err: unknown): void };

/**
 * One gRPC call over an HTTP/2 stream: length-prefixed messages out, the
 * same back, and the status in the trailers. Incoming messages are an async
 * iterator that ends on status OK and throws GrpcError otherwise; reading
 * pauses while the consumer lags (HTTP/2 flow control then holds the server).
 */
export class GrpcStream implements AsyncIterableIterator<Uint8Array> {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private readonly queue: Uint8Array[] = [];
  private waiter: Waiter | undefined;
  private outcome: { error?: GrpcError } | undefined;
  private responded = false;

  constructor(
    private readonly stream: ClientHttp2Stream,
    /** Whether the HTTP/2 session had connected when the call started (a failure before that means nothing was sent). */
    private readonly sessionConnected: () => boolean,
  ) {
    stream.on('response', (headers) => {
      this.responded = true;
      // A trailers-only response carries the status in the headers.
      if (headers['grpc-status'] !== undefined) this.settleFromHeaders(headers);
    });
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    stream.on('trailers', (trailers) => this.settleFromHeaders(trailers));
    stream.on('error', (err: Error) => {
      this.settle(new GrpcError(GrpcCode.Unavailable, err.message, !this.responded && !this.sessionConnected()));
    });
    stream.on('close', () => {
      if (!this.outcome) this.settle(new GrpcError(GrpcCode.Unavailable, `stream closed (http2 code ${stream.rstCode})`, !this.responded && !this.sessionConnected()));
    });
  }

  send(message: Uint8Array): void {
    if (this.stream.destroyed || this.stream.writableEnded) return;
    const frame = Buffer.allocUnsafe(5 + message.length);
    frame[0] = 0;
    frame.writeUInt32BE(message.length, 1);
    frame.set(message, 5);
    this.stream.write(frame);
  }

  /** Half-closes: no more requests from us. */
  end(): void {
    this.stream.end();
  }

  /** Cancels the call. */
  cancel(): void {
    this.reset();
    this.settle(new GrpcError(GrpcCode.Cancelled, 'cancelled'));
  }

  /**
   * Resets the stream on the next turn of the event loop, never from inside
   * a callback: a cancel can run while nghttp2 is still delivering this
   * stream's frames (a data or close handler, or a promise continuation
   * drained there), and closing a stream re-entrantly corrupts node's
   * HTTP/2 heap (nodejs/node#38964: "double free", "corrupted size vs.
   * prev_size" aborts of the whole process).
   */
  private reset(): void {
    setImmediate(() => {
      if (!this.stream.destroyed) this.stream.close(0x8 /* NGHTTP2_CANCEL */);
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    const message = this.queue.shift();
    if (message) {
      if (this.queue.length < HIGH_WATER / 2 && this.stream.isPaused()) this.stream.resume();
      return Promise.resolve({ done: false, value: message });
    }
    if (this.outcome) {
      return this.outcome.error ? Promise.reject(this.outcome.error) : Promise.resolve({ done: true, value: undefined });
    }
    if (this.stream.isPaused()) this.stream.resume();
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.cancel();
    return { done: true, value: undefined };
  }

  private onData(chunk: Buffer): void {
    // Chunks are kept apart until a whole message is there: concatenating on every chunk is quadratic for big lists.
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.buffered < 5) return;
      const head = this.peek(5);
      const length = head.readUInt32BE(1);
      if (this.buffered < 5 + length) return;
      if (head[0] !== 0) {
        this.settle(new GrpcError(GrpcCode.Unknown, 'compressed gRPC messages are not supported'));
        this.reset();
        return;
      }
      const frame = this.peek(5 + length);
      this.consume(5 + length);
      this.push(frame.subarray(5));
    }
  }

  /** The first `n` buffered bytes as one buffer (merging chunks as needed). */
  private peek(n: number): Buffer {
    if (this.chunks[0]!.length < n) {
      const merged = Buffer.concat(this.chunks);
      this.chunks.length = 0;
      this.chunks.push(merged);
    }
    return this.chunks[0]!.subarray(0, n);
  }

  private consume(n: number): void {
    const first = this.chunks[0]!;
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.buffered -= n;
  }

  private push(message: Uint8Array): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter.resolve({ done: false, value: message });
      return;
    }
    this.queue.push(message);
    if (this.queue.length >= HIGH_WATER) this.stream.pause();
  }

  private settleFromHeaders(headers: IncomingHttpHeaders): void {
    const code = Number(headers['grpc-status'] ?? GrpcCode.Unknown);
    const details = decodeURIComponent(String(headers['grpc-message'] ?? ''));
    this.settle(code === GrpcCode.OK ? undefined : new GrpcError(code, details));
  }

  private settle(error: GrpcError | undefined): void {
    if (this.outcome) return;
    this.outcome = error ? { error } : {};
    const waiter = this.waiter;
    this.waiter = undefined;
    if (!waiter) return;
    if (error) waiter.reject(error);
    else waiter.resolve({ done: true, value: undefined });
  }
}
