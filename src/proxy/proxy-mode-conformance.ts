import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import type { ProxyMode } from './proxy-mode.js';
import type { ServiceEndpoint, ServicePort } from './service-port.js';

/**
 * The behaviour every ProxyMode must show (STYLE rule 10), run against
 * local TCP servers playing endpoints. Cluster IPs are 127.0.0.x, which a
 * mode under test must treat as local; node ports listen on 127.0.0.1.
 * `make` builds a fresh mode for node `n1`.
 */
export function proxyModeConformance(name: string, make: () => ProxyMode): void {
  describe(`ProxyMode conformance: ${name}`, () => {
    const backends: { name: string; server: net.Server; port: number }[] = [];
    let mode: ProxyMode;

    before(async () => {
      for (const backendName of ['one', 'two', 'three']) {
        // Each connection is answered with the backend's name, then closed.
        const server = net.createServer((s) => s.end(backendName));
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
        backends.push({ name: backendName, server, port: (server.address() as AddressInfo).port });
      }
    });
    after(() => {
      for (const b of backends) b.server.close();
    });
    afterEach(async () => {
      await mode?.stop();
    });

    const endpoint = (i: number, o: Partial<ServiceEndpoint> = {}): ServiceEndpoint => ({ ip: '127.0.0.1', port: backends[i].port, ready: true, serving: true, terminating: false, nodeName: 'n1', ...o });
    const service = (port: number, o: Partial<ServicePort> = {}): ServicePort => ({
      key: 'ns/web:http/TCP', namespace: 'ns', name: 'web', portName: 'http', protocol: 'TCP', clusterIP: '127.0.0.1', port, externalIPs: [], externalLocal: false, internalLocal: false, ...o,
    });
    const ask = (port: number): Promise<string> =>
      new Promise((resolve, reject) => {
        let body = '';
        const s = net.connect({ host: '127.0.0.1', port });
        s.on('data', (d: Buffer) => (body += d.toString()));
        s.on('end', () => resolve(body));
        s.on('error', reject);
      });
    const errorOf = (port: number): Promise<string> => ask(port).then((body) => `answered ${body}`, (err: NodeJS.ErrnoException) => err.code ?? 'error');

    // Modes pick differently (round-robin, random): ask until every expected endpoint answered, within a bound.
    const answers = async (port: number, expected: readonly string[], tries = 40): Promise<Set<string>> => {
      const got = new Set<string>();
      for (let i = 0; i < tries && got.size < expected.length; i++) got.add(await ask(port));
      for (let i = 0; i < 4; i++) got.add(await ask(port));
      return got;
    };

    it('spreads over the ready endpoints on the cluster IP and the node port', async () => {
      mode = make();
      const [cip, np] = [await freePort(), await freePort()];
      await mode.sync([service(cip, { nodePort: np })], new Map([['ns/web:http/TCP', [endpoint(0), endpoint(1), endpoint(2, { ready: false, serving: false })]]]));
      assert.deepEqual(await answers(cip, ['one', 'two']), new Set(['one', 'two']));
      assert.deepEqual(await answers(np, ['one', 'two']), new Set(['one', 'two']));
    });

    it('rejects connections while a service has no usable endpoints, and serves once it has', async () => {
      mode = make();
      const port = await freePort();
      await mode.sync([service(port)], new Map());
      assert.match(await errorOf(port), /ECONNRESET|ECONNREFUSED/);
      // Serving-but-terminating endpoints are used when nothing is ready.
      await mode.sync([service(port)], new Map([['ns/web:http/TCP', [endpoint(1, { ready: false, terminating: true })]]]));
      assert.equal(await ask(port), 'two');
    });

    it('stops listening when the service goes, and on stop()', async () => {
      mode = make();
      const [p1, p2] = [await freePort(), await freePort()];
      const eps = new Map([['ns/web:http/TCP', [endpoint(0)]], ['ns/api:http/TCP', [endpoint(1)]]]);
      await mode.sync([service(p1), service(p2, { key: 'ns/api:http/TCP', name: 'api' })], eps);
      assert.equal(await ask(p2), 'two');
      await mode.sync([service(p1)], eps);
      assert.equal(await errorOf(p2), 'ECONNREFUSED');
      assert.equal(await ask(p1), 'one');
      await mode.stop();
      assert.equal(await errorOf(p1), 'ECONNREFUSED');
    });

    it('keeps a client on one endpoint with ClientIP session affinity', async () => {
      mode = make();
      const port = await freePort();
      await mode.sync([service(port, { affinityTimeoutSeconds: 60 })], new Map([['ns/web:http/TCP', [endpoint(0), endpoint(1), endpoint(2)]]]));
      const first = await ask(port);
      assert.deepEqual([await ask(port), await ask(port), await ask(port)], [first, first, first]);
    });

    // (externalTrafficPolicy: Local is not observable from the node itself: upstream routes the node's own traffic to a node port by the cluster policy.)
    it('sends cluster IP traffic only to this node\'s endpoints with internalTrafficPolicy Local', async () => {
      mode = make();
      const [cip, np] = [await freePort(), await freePort()];
      await mode.sync([service(cip, { nodePort: np, internalLocal: true })], new Map([['ns/web:http/TCP', [endpoint(0, { nodeName: 'n2' }), endpoint(1)]]]));
      assert.deepEqual([await ask(cip), await ask(cip), await ask(cip), await ask(cip)], ['two', 'two', 'two', 'two']);
      assert.deepEqual(await answers(np, ['one', 'two']), new Set(['one', 'two']));
    });
  });
}

/** A port nothing listens on right now (the kernel's pick, released at once). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
