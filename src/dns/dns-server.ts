import dgram from 'node:dgram';
import net from 'node:net';
import packet, { type Answer, type DecodedPacket, type OptAnswer, type Question } from 'dns-packet';
import type { DnsIndex } from './dns-index.js';
import type { DnsMetrics } from './dns-metrics.js';
import { resolveQuery, type Rcode, type ResolveOptions } from './resolve-query.js';
import type { UpstreamForwarder } from './upstream-forwarder.js';

const RCODES: Record<Rcode, number> = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 };
const QR = 0x8000;
const OPCODE_MASK = 0x7800;
const CD = 0x0010;
/** What a UDP answer may hold without EDNS (RFC 1035). */
const UDP_CLASSIC = 512;
/** The EDNS buffer size this server offers (the DNS flag day's 1232). */
const EDNS_SIZE = 1232;
/** Cached answers at most; the cache is cleared when full (and whenever the records change). */
const CACHE_ENTRIES = 10_000;
/** A TCP connection idle this long is closed. */
const TCP_IDLE_MS = 10_000;

export interface DnsServerOptions {
  index: DnsIndex;
  /** Zone, TTL and SOA serial; `serial` is read per answer. */
  records: Omit<ResolveOptions, 'serial'> & { serial(): number };
  forwarder?: UpstreamForwarder;
  metrics?: DnsMetrics;
  /** Called when an answer came from a Service's records (not from the cache). */
  onServiceAnswer?(serviceKey: string, qname: string, qtype: string): void;
}

type Proto = 'udp' | 'tcp';

/**
 * The DNS wire side: UDP and TCP on one address and port, queries decoded
 * and answers encoded with `dns-packet`. Answers from the cluster's records
 * are cached as encoded bytes, keyed by the query's bytes after its ID, until
 * the records change; a malformed query gets FORMERR (or is dropped when too
 * short to answer), never an exception.
 */
export class DnsServer {
  private udp?: dgram.Socket;
  private tcp?: net.Server;
  private readonly connections = new Set<net.Socket>();
  private readonly cache = new Map<string, { out: Buffer; type: string; rcode: Rcode }>();
  private cacheGeneration = -1;
  private closed = false;

  constructor(private readonly o: DnsServerOptions) {}

  /** Listens on UDP and TCP at the same port (port 0: a free one); resolves with the port. */
  async listen(host: string, port: number): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const udp = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(port, host, () => {
          udp.off('error', reject);
          resolve();
        });
      });
      const bound = udp.address().port;
      const tcp = net.createServer((s) => this.serveTcp(s));
      try {
        await new Promise<void>((resolve, reject) => {
          tcp.once('error', reject);
          tcp.listen(bound, host, () => {
            tcp.off('error', reject);
            resolve();
          });
        });
      } catch (err) {
        udp.close();
        // a free UDP port whose TCP twin is taken: pick another
        if (port === 0 && attempt < 5) continue;
        throw err;
      }
      udp.on('message', (msg, rinfo) => this.serveUdp(udp, msg, rinfo));
      udp.on('error', () => undefined);
      this.udp = udp;
      this.tcp = tcp;
      return bound;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.connections) s.destroy();
    await Promise.all([
      new Promise<void>((resolve) => (this.udp ? this.udp.close(() => resolve()) : resolve())),
      new Promise<void>((resolve) => (this.tcp ? this.tcp.close(() => resolve()) : resolve())),
    ]);
  }

  /**
   * The answer to one query message (without TCP's length prefix), or
   * undefined when it deserves none (not a query, or too short to carry an ID).
   */
  answer(msg: Buffer, proto: Proto): Buffer | undefined | Promise<Buffer | undefined> {
    if (msg.length < 12 || (msg.readUInt16BE(2) & QR) !== 0) return undefined;
    if (this.cacheGeneration !== this.o.index.generation) {
      this.cache.clear();
      this.cacheGeneration = this.o.index.generation;
    }
    const key: string | undefined = msg.length <= UDP_CLASSIC ? proto + msg.toString('latin1', 2) : undefined;
    const hit = key === undefined ? undefined : this.cache.get(key);
    if (hit) {
      this.o.metrics?.requests.inc({ proto, type: hit.type });
      this.o.metrics?.responses.inc({ rcode: hit.rcode });
      this.o.metrics?.cacheHits.inc();
      const out = Buffer.allocUnsafe(hit.out.length);
      hit.out.copy(out);
      out.writeUInt16BE(msg.readUInt16BE(0), 0);
      return out;
    }
    let query: DecodedPacket;
    try {
      query = packet.decode(msg);
    } catch {
      return headerOnly(msg, RCODES.FORMERR);
    }
    if ((msg.readUInt16BE(2) & OPCODE_MASK) !== 0) return headerOnly(msg, RCODES.NOTIMP);
    const q = query.questions?.[0];
    if (!q || query.questions!.length !== 1) return headerOnly(msg, RCODES.FORMERR);
    this.o.metrics?.requests.inc({ proto, type: String(q.type) });
    try {
      return this.resolve(msg, query, q, proto, key);
    } catch {
      // records the wire format cannot carry (e.g. an over-long name): no answer beats a crash
      this.o.metrics?.responses.inc({ rcode: 'SERVFAIL' });
      return headerOnly(msg, RCODES.SERVFAIL);
    }
  }

  private resolve(msg: Buffer, query: DecodedPacket, q: Question, proto: Proto, key: string | undefined): Buffer | Promise<Buffer> {
    const r = resolveQuery(this.o.index, q, { ...this.o.records, serial: this.o.records.serial() });
    if ('forward' in r) return this.forward(msg, query);
    this.o.metrics?.cacheMisses.inc();
    if (r.serviceKey) this.o.onServiceAnswer?.(r.serviceKey, q.name, String(q.type));
    const opt = query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
    const flags = packet.AUTHORITATIVE_ANSWER | packet.RECURSION_AVAILABLE | (query.flags ?? 0) & (packet.RECURSION_DESIRED | CD) | RCODES[r.rcode];
    const additionals: Answer[] = opt ? [...r.additionals, { name: '.', type: 'OPT', udpPayloadSize: EDNS_SIZE, flags: 0 } as OptAnswer] : r.additionals;
    let out = packet.encode({ type: 'response', id: query.id, flags, questions: [q], answers: r.answers, authorities: r.authorities, additionals });
    const limit = proto === 'tcp' ? 65535 : Math.max(UDP_CLASSIC, Math.min(opt?.udpPayloadSize ?? UDP_CLASSIC, EDNS_SIZE));
    if (out.length > limit) {
      out = packet.encode({ type: 'response', id: query.id, flags: flags | packet.TRUNCATED_RESPONSE, questions: [q], additionals: opt ? additionals.slice(-1) : [] });
    }
    this.o.metrics?.responses.inc({ rcode: r.rcode });
    if (key !== undefined) {
      if (this.cache.size >= CACHE_ENTRIES) this.cache.clear();
      this.cache.set(key, { out, type: String(q.type), rcode: r.rcode });
    }
    return out;
  }

  private async forward(msg: Buffer, query: DecodedPacket): Promise<Buffer> {
    const answer = this.o.forwarder?.configured ? await this.o.forwarder.forward(msg) : undefined;
    if (answer) return answer;
    this.o.metrics?.responses.inc({ rcode: 'SERVFAIL' });
    const flags = packet.RECURSION_AVAILABLE | (query.flags ?? 0) & packet.RECURSION_DESIRED | RCODES.SERVFAIL;
    return packet.encode({ type: 'response', id: query.id, flags, questions: query.questions });
  }

  private serveUdp(socket: dgram.Socket, msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const started = performance.now();
    const send = (out: Buffer | undefined): void => {
      // a forwarded answer may come back after close(): then there is no one to send it to
      if (!out || this.closed) return;
      socket.send(out, rinfo.port, rinfo.address, () => undefined);
      this.o.metrics?.duration.observe({ proto: 'udp' }, (performance.now() - started) / 1000);
    };
    let out: ReturnType<DnsServer['answer']>;
    try {
      out = this.answer(msg, 'udp');
    } catch {
      return;
    }
    if (out instanceof Promise) void out.then(send).catch(() => undefined);
    else send(out);
  }

  /** TCP: each message carries a two-byte length; answers go back in order. */
  private serveTcp(socket: net.Socket): void {
    this.connections.add(socket);
    socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
    socket.on('close', () => this.connections.delete(socket));
    socket.on('error', () => undefined);
    let pending: Buffer = Buffer.alloc(0);
    let chain: Promise<void> = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const size = pending.readUInt16BE(0);
        if (pending.length < 2 + size) break;
        const msg = pending.subarray(2, 2 + size);
        pending = pending.subarray(2 + size);
        const started = performance.now();
        chain = chain.then(async () => {
          const out = await this.answer(Buffer.from(msg), 'tcp');
          if (!out || socket.destroyed || this.closed) return;
          const len = Buffer.allocUnsafe(2);
          len.writeUInt16BE(out.length, 0);
          socket.write(Buffer.concat([len, out]));
          this.o.metrics?.duration.observe({ proto: 'tcp' }, (performance.now() - started) / 1000);
        }).catch(() => {
          socket.destroy();
        });
      }
    });
  }
}

/** A reply made of the query's header alone, with an rcode: for queries that cannot be decoded. */
function headerOnly(msg: Buffer, rcode: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(msg.readUInt16BE(0), 0);
  const flags = msg.readUInt16BE(2);
  out.writeUInt16BE(QR | (flags & OPCODE_MASK) | (flags & packet.RECURSION_DESIRED) | rcode, 2);
  return out;
}
