import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../machinery/logger.js';
import { healthCheckResponse, localReadyEndpoints, ServiceHealthServer } from './service-health-server.js';
import type { ServiceEndpoint, ServicePort } from './service-port.js';

const port = (name: string, portName: string, hc?: number): ServicePort => ({
  key: `default/${name}:${portName}/TCP`, namespace: 'default', name, portName, protocol: 'TCP', port: 80, externalIPs: [], externalLocal: hc !== undefined, internalLocal: false,
  ...(hc ? { healthCheckNodePort: hc } : {}),
});
const ep = (ip: string, nodeName: string, ready = true): ServiceEndpoint => ({ ip, port: 8080, ready, serving: ready, terminating: false, nodeName });

describe('localReadyEndpoints', () => {
  it('counts this node\'s ready endpoint addresses once over all ports, only for services with a health check port', () => {
    const services = [port('web', 'http', 30100), port('web', 'https', 30100), port('other', '')];
    const endpoints = new Map([
      ['default/web:http/TCP', [ep('10.42.0.2', 'n1'), ep('10.42.0.3', 'n1', false), ep('10.42.1.2', 'n2')]],
      ['default/web:https/TCP', [ep('10.42.0.2', 'n1'), ep('10.42.0.4', 'n1')]],
      ['default/other:/TCP', [ep('10.42.0.9', 'n1')]],
    ]);
    assert.deepEqual(localReadyEndpoints(services, endpoints, 'n1'), new Map([['default/web', 2]]));
    assert.deepEqual(localReadyEndpoints(services, endpoints, 'n3'), new Map([['default/web', 0]]));
  });
});

describe('healthCheckResponse', () => {
  it('is 200 with local endpoints and a healthy proxy, else 503, in upstream\'s JSON', () => {
    assert.deepEqual(healthCheckResponse('default/web', 1, true), { status: 200, body: '{\n\t"service": {\n\t\t"namespace": "default",\n\t\t"name": "web"\n\t},\n\t"localEndpoints": 1,\n\t"serviceProxyHealthy": true\n}' });
    assert.equal(healthCheckResponse('default/web', 0, true).status, 503);
    assert.equal(healthCheckResponse('default/web', 2, false).status, 503);
  });
});

describe('ServiceHealthServer', () => {
  it('opens a server on each health check node port, answers from the last sync and closes it when the service goes', async () => {
    const hs = new ServiceHealthServer({ nodeName: 'n1', addresses: ['127.0.0.1'], proxyHealthy: () => true, logger: createLogger('hc-test', {}, () => undefined) });
    // a free port from the OS, then our server on it
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const free = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    try {
      const services = [port('web', 'http', free)];
      await hs.sync(services, new Map([['default/web:http/TCP', [ep('10.42.1.2', 'n2')]]]));
      let res = await fetch(`http://127.0.0.1:${free}/healthz`);
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal((await res.json() as { localEndpoints: number }).localEndpoints, 0);
      await hs.sync(services, new Map([['default/web:http/TCP', [ep('10.42.0.2', 'n1')]]]));
      res = await fetch(`http://127.0.0.1:${free}/`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { service: { namespace: 'default', name: 'web' }, localEndpoints: 1, serviceProxyHealthy: true });
      await hs.sync([], new Map());
      await assert.rejects(fetch(`http://127.0.0.1:${free}/`));
    } finally {
      await hs.stop();
    }
  });
});
