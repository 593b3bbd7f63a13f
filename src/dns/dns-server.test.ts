import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import packet, { type DecodedPacket, type Packet } from 'dns-packet';
import { MetricsRegistry } from '../base/metrics/registry.js';
import { DnsIndex } from './dns-index.js';
import { dnsMetrics } from './dns-metrics.js';
import { DnsServer } from './dns-server.js';
import { UpstreamForwarder } from './upstream-forwarder.js';

/** dns-packet decodes the rcode, which its types omit. */
type Decoded = DecodedPacket & { rcode: string };
const decode = (b: Buffer): Decoded => packet.decode(b) as Decoded;

/** Sends one UDP message and waits for the answer (or undefined after a deadline). */
function udpExchange(port: number, msg: Buffer, waitMs = 2000): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      s.close();
      resolve(undefined);
    }, waitMs);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      resolve(m);
    });
    s.send(msg, port, '127.0.0.1');
  });
}

async function udpQuery(port: number, p: Packet): Promise<Decoded> {
  const answer = await udpExchange(port, packet.encode(p));
  assert.ok(answer, 'an answer');
  return decode(answer);
}

function query(name: string, type: 'A' | 'AAAA' | 'SRV' | 'TXT' = 'A', id = 7): Packet {
  return { type: 'query', id, flags: packet.RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }] };
}

describe('DnsServer over UDP and TCP', () => {
  const index = new DnsIndex();
  const registry = new MetricsRegistry();
  let upstream: dgram.Socket;
  let server: DnsServer;
  let port = 0;

  before(async () => {
    // a stand-in upstream on loopback: answers every A query with 192.0.2.1
    upstream = dgram.createSocket('udp4');
    upstream.on('message', (m, r) => {
      const q = packet.decode(m);
      upstream.send(packet.encode({ type: 'response', id: q.id, flags: packet.RECURSION_AVAILABLE, questions: q.questions, answers: [{ name: q.questions![0].name, type: 'A', ttl: 60, data: '192.0.2.1' }] }), r.port, r.address);
    });
    await new Promise<void>((resolve) => upstream.bind(0, '127.0.0.1', resolve));
    index.setService({ metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.96.0.20', ports: [{ name: 'http', port: 80 }] } });
    server = new DnsServer({
      index,
      records: { zone: 'cluster.local', ttl: 5, serial: () => 1 },
      forwarder: new UpstreamForwarder({ upstreams: [`127.0.0.1:${upstream.address().port}`] }),
      metrics: dnsMetrics(registry),
    });
    port = await server.listen('127.0.0.1', 0);
  });

  after(async () => {
    await server.close();
    upstream.close();
  });

  test('answers a Service name authoritatively, echoing ID, question and RD', async () => {
    const r = await udpQuery(port, query('web.default.svc.cluster.local', 'A', 4242));
    assert.equal(r.id, 4242);
    assert.equal(r.rcode, 'NOERROR');
    assert.ok(r.flag_aa && r.flag_rd && r.flag_qr);
    assert.deepEqual(r.questions, [{ name: 'web.default.svc.cluster.local', type: 'A', class: 'IN' }]);
    assert.deepEqual(r.answers?.map((a) => [a.type, 'data' in a ? a.data : '', 'ttl' in a ? a.ttl : 0]), [['A', '10.96.0.20', 5]]);
  });

  test('a cached answer carries the new query\'s ID, and a change to the records replaces it', async () => {
    const first = await udpQuery(port, query('web.default.svc.cluster.local', 'A', 1));
    const second = await udpQuery(port, query('web.default.svc.cluster.local', 'A', 2));
    assert.equal(second.id, 2);
    assert.deepEqual(second.answers, first.answers);
    assert.match(await registry.render(), /coredns_cache_hits_total [1-9]/);
    index.setService({ metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.96.0.21', ports: [{ name: 'http', port: 80 }] } });
    const third = await udpQuery(port, query('web.default.svc.cluster.local', 'A', 3));
    assert.deepEqual(third.answers?.map((a) => ('data' in a ? a.data : '')), ['10.96.0.21']);
  });

  test('NXDOMAIN with the SOA for a missing name in the zone', async () => {
    const r = await udpQuery(port, query('nope.default.svc.cluster.local'));
    assert.equal(r.rcode, 'NXDOMAIN');
    assert.equal(r.authorities?.[0]?.type, 'SOA');
  });

  test('names outside the zone go to the upstream resolver', async () => {
    const r = await udpQuery(port, query('example.org', 'A', 99));
    assert.equal(r.id, 99);
    assert.deepEqual(r.answers?.map((a) => ('data' in a ? a.data : '')), ['192.0.2.1']);
  });

  test('malformed queries get FORMERR or nothing, and the server keeps answering', async () => {
    const garbage = Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3f, 0x61]);
    const formerr = await udpExchange(port, garbage);
    assert.ok(formerr);
    const decoded = decode(formerr);
    assert.equal(decoded.id, 0x1234);
    assert.equal(decoded.rcode, 'FORMERR');
    const twoQuestions = packet.encode({ type: 'query', id: 5, questions: [{ name: 'a.cluster.local', type: 'A' }, { name: 'b.cluster.local', type: 'A' }] });
    assert.equal(decode((await udpExchange(port, twoQuestions))!).rcode, 'FORMERR');
    assert.equal(await udpExchange(port, Buffer.from([1, 2, 3]), 300), undefined, 'too short to answer');
    const answer = packet.encode({ type: 'response', id: 5, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }] });
    assert.equal(await udpExchange(port, answer, 300), undefined, 'responses are not answered');
    assert.equal((await udpQuery(port, query('web.default.svc.cluster.local'))).rcode, 'NOERROR');
  });

  test('answers over TCP, several queries on one connection', async () => {
    const socket = net.connect(port, '127.0.0.1');
    const answers: DecodedPacket[] = [];
    const got = new Promise<void>((resolve, reject) => {
      let buf = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          answers.push(packet.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))));
          buf = buf.subarray(2 + buf.readUInt16BE(0));
          if (answers.length === 2) resolve();
        }
      });
      socket.on('error', reject);
    });
    socket.write(Buffer.concat([packet.streamEncode(query('web.default.svc.cluster.local', 'A', 11)), packet.streamEncode(query('_http._tcp.web.default.svc.cluster.local', 'SRV', 12))]));
    await got;
    socket.destroy();
    assert.deepEqual(answers.map((a) => [a.id, a.answers?.[0]?.type]), [[11, 'A'], [12, 'SRV']]);
  });

  test('an answer too large for UDP comes truncated (TC), so the client retries over TCP', async () => {
    const endpoints = Array.from({ length: 60 }, (_, n) => ({ addresses: [`10.244.3.${n + 1}`], conditions: { ready: true } }));
    index.setService({ metadata: { name: 'big', namespace: 'default' }, spec: { clusterIP: 'None' } });
    index.setSlice({ addressType: 'IPv4', metadata: { name: 'big-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'big' } }, endpoints });
    const r = await udpQuery(port, query('big.default.svc.cluster.local'));
    assert.ok(r.flag_tc, 'truncated');
    assert.equal(r.answers?.length ?? 0, 0);
  });
});
