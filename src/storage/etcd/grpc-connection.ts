import { connect, type ClientHttp2Session, type SecureClientSessionOptions } from 'node:http2';
import { GrpcCode, GrpcError } from './grpc-error.js';
import { GrpcStream } from './grpc-stream.js';

export interface TlsMaterial {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export interface GrpcConnectionOptions {
  /** Base URLs, e.g. http://127.0.0.1:2379 (https when TLS is used). */
  endpoints: string[];
  tls?: TlsMaterial;
}

const WINDOW = 16 * 1024 * 1024;

interface Session {
  session: ClientHttp2Session;
  connected: boolean;
}

/**
 * A gRPC channel over node:http2 to one of several endpoints. It keeps one
 * HTTP/2 session to the current endpoint and, when that session fails, moves
 * to the next one on the following call (etcd forwards requests to the
 * leader, so any member will do).
 */
export class GrpcConnection {
  private current: Session | undefined;
  private index = 0;
  private closed = false;

  constructor(private readonly opts: GrpcConnectionOptions) {
    if (opts.endpoints.length === 0) throw new RangeError('at least one endpoint is required');
  }

  /** Starts a call; the caller sends requests and iterates the responses. */
  call(path: string, timeoutMs?: number): GrpcStream {
    if (this.closed) throw new GrpcError(GrpcCode.Unavailable, 'connection closed', true);
    const entry = this.session();
    const headers: Record<string, string> = {
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc+proto',
      te: 'trailers',
    };
    if (timeoutMs !== undefined) headers['grpc-timeout'] = `${Math.max(1, Math.ceil(timeoutMs))}m`;
    let stream;
    try {
      stream = entry.session.request(headers);
    } catch (err) {
      this.drop(entry);
      throw new GrpcError(GrpcCode.Unavailable, err instanceof Error ? err.message : String(err), !entry.connected);
    }
    return new GrpcStream(stream, () => entry.connected);
  }

  /** One request, one response. */
  async unary(path: string, request: Uint8Array, timeoutMs = 10_000): Promise<Uint8Array> {
    const call = this.call(path, timeoutMs);
    // The server enforces grpc-timeout too; this guards against a peer that went silent.
    const timer = setTimeout(() => call.cancel(), timeoutMs + 1000);
    try {
      call.send(request);
      call.end();
      let response: Uint8Array | undefined;
      for await (const message of call) response ??= message;
      if (!response) throw new GrpcError(GrpcCode.Unknown, `no response message for ${path}`);
      return response;
    } catch (err) {
      if (err instanceof GrpcError && err.code === GrpcCode.Unavailable) this.failover();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Drops the current session so the next call goes to the next endpoint. */
  failover(): void {
    if (this.current) this.drop(this.current);
  }

  get endpoint(): string {
    return this.opts.endpoints[this.index % this.opts.endpoints.length]!;
  }

  close(): void {
    this.closed = true;
    if (this.current) {
      const { session } = this.current;
      this.current = undefined;
      setImmediate(() => session.destroy());
    }
  }

  private session(): Session {
    const existing = this.current;
    if (existing && !existing.session.destroyed && !existing.session.closed) return existing;
    const url = this.endpoint;
    const tls = this.opts.tls;
    // Big windows: a list of thousands of objects is one message of many megabytes.
    const options: SecureClientSessionOptions = { settings: { initialWindowSize: WINDOW }, ...(tls ? { ca: tls.ca, cert: tls.cert, key: tls.key } : {}) };
    const session = connect(url, options);
    const entry: Session = { session, connected: false };
    session.on('connect', () => {
      entry.connected = true;
      session.setLocalWindowSize(WINDOW);
    });
    // Errors surface on the streams; the session itself is just replaced.
    session.on('error', () => this.drop(entry));
    // The server is going away: new calls go elsewhere, calls in flight may finish.
    session.on('goaway', () => this.drop(entry, true));
    session.on('close', () => this.drop(entry));
    this.current = entry;
    return entry;
  }

  private drop(entry: Session, graceful = false): void {
    if (this.current === entry) {
      this.current = undefined;
      this.index++;
    }
    // On the next turn, never inside a session callback (goaway, error,
    // close run while nghttp2 is still processing): see GrpcStream.reset.
    setImmediate(() => {
      if (entry.session.destroyed) return;
      if (graceful) entry.session.close();
      else entry.session.destroy();
    });
  }
}
