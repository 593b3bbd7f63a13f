import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { startInProcessServer, type InProcessServer } from '../in-process-server.test-util.js';
import { testPki } from '../../testing/test-pki.js';

/** Pods have routable IPs; proxying to loopback is refused, so backends listen on the host's own address. */
const hostIP = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

interface Seen {
  method?: string;
  url?: string;
  headers?: http.IncomingHttpHeaders;
  body?: string;
}

function listen(server: http.Server | https.Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

describe('pods/proxy, services/proxy and nodes/proxy', { skip: hostIP ? false : 'needs a non-loopback IPv4 address' }, () => {
  let s: InProcessServer;
  const seen: Seen = {};
  let backendPort = 0;
  let hangingPort = 0;
  let kubeletPort = 0;
  let kubeletClientCN = '';
  const backend = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      Object.assign(seen, { method: req.method, url: req.url, headers: req.headers, body });
      if (req.url === '/page') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Access-Control-Allow-Origin': '*' });
        res.end('<html><a href="/next">next</a><img src="rel.png"></html>');
      } else if (req.url === '/moved') {
        res.writeHead(302, { Location: '/elsewhere' });
        res.end();
      } else {
        res.end(`hello from ${req.url}`);
      }
    });
  });
  backend.on('upgrade', (req, socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
    socket.pipe(socket);
  });
  const hanging = http.createServer(() => {});
  let kubelet: https.Server;

  before(async () => {
    const pki = await testPki();
    kubelet = https.createServer({ cert: pki.serving.certPem, key: pki.serving.keyPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      kubeletClientCN = String((req.socket as tls.TLSSocket).getPeerCertificate()?.subject?.CN ?? '');
      res.end(`kubelet ${req.url}`);
    });
    backendPort = await listen(backend, hostIP!);
    hangingPort = await listen(hanging, hostIP!);
    kubeletPort = await listen(kubelet, hostIP!);
    s = await startInProcessServer({ limits: { requestTimeoutMs: 500 } });
    const pod = (name: string, port: number) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'x', ports: [{ name: 'http', containerPort: port }] }] },
    });
    for (const [name, port] of [['web', backendPort], ['stuck', hangingPort], ['pending', backendPort]] as const) {
      const created = await s.request('POST', '/api/v1/namespaces/default/pods', { body: pod(name, port) });
      assert.equal(created.status, 201, created.text);
      if (name === 'pending') continue;
      const current = created.json();
      current.status = { phase: 'Running', podIP: hostIP, podIPs: [{ ip: hostIP }] };
      const put = await s.request('PUT', `/api/v1/namespaces/default/pods/${name}/status`, { body: current });
      assert.equal(put.status, 200, put.text);
    }
    for (const name of ['web', 'empty']) {
      const svc = await s.request('POST', '/api/v1/namespaces/default/services', {
        body: { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
      });
      assert.equal(svc.status, 201, svc.text);
    }
    const eps = await s.request('POST', '/api/v1/namespaces/default/endpoints', {
      body: {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'web' },
        subsets: [{ addresses: [{ ip: hostIP, targetRef: { kind: 'Pod', namespace: 'default', name: 'web' } }], ports: [{ name: 'http', port: backendPort }] }],
      },
    });
    assert.equal(eps.status, 201, eps.text);
    await s.request('POST', '/api/v1/namespaces/default/endpoints', { body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'empty' } } });
    const node = await s.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } });
    assert.equal(node.status, 201, node.text);
    const n = node.json();
    n.status = { addresses: [{ type: 'InternalIP', address: hostIP }], daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } } };
    assert.equal((await s.request('PUT', '/api/v1/nodes/n1/status', { body: n })).status, 200);
  });
  after(async () => {
    await s?.stop();
    backend.close();
    hanging.closeAllConnections();
    hanging.close();
    kubelet?.close();
  });

  it('forwards to the pod IP and its first port, with the query, minus the API server credentials', async () => {
    const r = await s.request('GET', '/api/v1/namespaces/default/pods/web/proxy/hello/?x=1&y=2', { headers: { Authorization: 'Bearer secret', 'X-Custom': 'kept' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, 'hello from /hello/?x=1&y=2');
    assert.equal(seen.headers?.authorization, undefined);
    assert.equal(seen.headers?.['x-custom'], 'kept');
    assert.equal(seen.headers?.['x-forwarded-uri'], '/api/v1/namespaces/default/pods/web/proxy/hello/');
  });

  it('takes name:port and forwards request bodies', async () => {
    const r = await s.request('POST', `/api/v1/namespaces/default/pods/web:${backendPort}/proxy/submit`, { body: 'payload', contentType: 'text/plain' });
    assert.equal(r.status, 200, r.text);
    assert.equal(seen.method, 'POST');
    assert.equal(seen.body, 'payload');
  });

  it('redirects the bare proxy path to the one with a slash', async () => {
    const r = await s.request('GET', '/api/v1/namespaces/default/services/web:http/proxy?a=b');
    assert.equal(r.status, 301);
    assert.equal(r.headers.location, '/api/v1/namespaces/default/services/web:http/proxy/?a=b');
  });

  it('rewrites HTML links and redirects to go through the proxy and drops CORS headers', async () => {
    const page = await s.request('GET', '/api/v1/namespaces/default/services/web:http/proxy/page');
    assert.equal(page.status, 200);
    assert.equal(page.text, '<html><a href="/api/v1/namespaces/default/services/web:http/proxy/next">next</a><img src="rel.png"></html>');
    assert.equal(page.headers['access-control-allow-origin'], undefined);
    const moved = await s.request('GET', '/api/v1/namespaces/default/services/web:http/proxy/moved');
    assert.equal(moved.status, 302);
    assert.equal(moved.headers.location, '/api/v1/namespaces/default/services/web:http/proxy/elsewhere');
  });

  it('maps a Service port number to its name', async () => {
    const r = await s.request('GET', '/api/v1/namespaces/default/services/http:web:80/proxy/x');
    assert.equal(r.text, 'hello from /x');
    const bad = await s.request('GET', '/api/v1/namespaces/default/services/web:81/proxy/x');
    assert.equal(bad.status, 503);
    assert.equal(bad.json().message, 'no service port 81 found for service "web"');
  });

  it("answers upstream's errors for missing and unready targets", async () => {
    const cases: [string, number, string][] = [
      ['/api/v1/namespaces/default/services/empty/proxy/', 503, 'no endpoints available for service "empty"'],
      ['/api/v1/namespaces/default/services/web:nosuch/proxy/', 503, 'no endpoints available for service "web:nosuch"'],
      // a named Service port has to be named in the URL
      ['/api/v1/namespaces/default/services/web/proxy/', 503, 'no endpoints available for service "web"'],
      ['/api/v1/namespaces/default/services/nosuch/proxy/', 404, 'endpoints "nosuch" not found'],
      ['/api/v1/namespaces/default/pods/nosuch/proxy/', 404, 'pods "nosuch" not found'],
      ['/api/v1/namespaces/default/pods/pending/proxy/', 400, 'address not allowed'],
      ['/api/v1/namespaces/default/pods/ftp:web:21/proxy/', 400, 'invalid pod request "ftp:web:21"'],
      ['/api/v1/nodes/nosuch/proxy/', 404, 'nodes "nosuch" not found'],
    ];
    for (const [path, code, message] of cases) {
      const r = await s.request('GET', path);
      assert.equal(r.status, code, `${path}: ${r.text}`);
      assert.equal(r.json().message, message, path);
      assert.equal(r.json().kind, 'Status');
    }
    const closed = await s.request('GET', '/api/v1/namespaces/default/pods/web:1/proxy/');
    assert.equal(closed.status, 503);
    assert.match(String(closed.json().message), /^error trying to reach service: dial tcp [\d.]+:1: connect: connection refused$/);
  });

  it('cuts a hanging backend at the timeout and keeps serving', async () => {
    const pending = s.request('GET', '/api/v1/namespaces/default/pods/stuck/proxy/slow');
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/pods/web')).status, 200);
    const r = await pending;
    assert.equal(r.status, 504, r.text);
    assert.equal(r.json().reason, 'Timeout');
  });

  it("reaches the node's kubelet with the API server's client certificate", async () => {
    const r = await s.request('GET', '/api/v1/nodes/n1/proxy/healthz?verbose');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, 'kubelet /healthz?verbose');
    assert.notEqual(kubeletClientCN, '');
    const other = await s.request('GET', `/api/v1/nodes/http:n1:${backendPort}/proxy/x`);
    assert.equal(other.text, 'hello from /x');
  });

  it('splices upgrades through to the backend', async () => {
    const opts = s.tlsOptions();
    const socket = tls.connect({ host: '127.0.0.1', port: s.port, ca: opts.ca, cert: opts.cert, key: opts.key, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    socket.write('GET /api/v1/namespaces/default/pods/web/proxy/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    let got = '';
    await new Promise<void>((resolve) => {
      socket.on('data', (d: Buffer) => {
        got += d.toString();
        if (got.includes('\r\n\r\n') && !got.includes('ping')) socket.write('ping');
        if (got.includes('ping')) resolve();
      });
    });
    socket.destroy();
    assert.match(got, /^HTTP\/1.1 101 /);
  });
});
