/**
 * Every installed kubectl (1.27 … 1.33) against one `skiff server` on the
 * process runtime: the streaming and proxying verbs users reach for, each
 * version in turn on the same cluster so the suite stays quick.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipUnless } from '../../../src/testing/requirements.js';
import { firstNodeName, kubectlBinary, kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from '../harness.js';

const VERSIONS = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'];
const BUSYBOX = '/usr/bin/busybox';
const requirement = skipUnless(existsSync(BUSYBOX) ? undefined : 'busybox is not installed (apt-get install busybox-static)');

/** A long-running kubectl (watch, follow, proxy, port-forward) whose output is awaited, then stopped. */
class Background {
  private out = '';
  private readonly proc: ChildProcess;
  private readonly exited: Promise<void>;

  constructor(bin: string, args: string[]) {
    this.proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc.stdout!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.proc.stderr!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.exited = new Promise((resolve) => this.proc.once('exit', () => resolve()));
  }

  get output(): string {
    return this.out;
  }

  /** Waits until the output matches, returning the match. */
  until(pattern: RegExp, what: string): Promise<RegExpExecArray> {
    return waitFor(what, () => pattern.exec(this.out) ?? (this.proc.exitCode !== null ? Promise.reject(new Error(`exited: ${this.out}`)) : undefined), 20_000, 50);
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
    await this.exited;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { timeout: 10_000 }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('kubectl 1.27 … 1.33', requirement, () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  let webPort = 0;
  let www = '';

  before(async () => {
    server = await startServer();
    k = kubectlFor(server.kubeconfig);
    await firstNodeName(k);
    webPort = await freePort();
    www = await mkdtemp(join(tmpdir(), 'skiff-www-'));
    await writeFile(join(www, 'index.html'), '<html><a href="/about.html">about</a></html>\n');
    // a cluster add-on in kube-system, so `kubectl cluster-info` lists it
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: kube-system, labels: {app: web}}
spec:
  containers:
  - name: web
    image: busybox
    command: [${BUSYBOX}, httpd, -f, -p, "${webPort}", -h, ${www}]
    ports: [{name: http, containerPort: ${webPort}}]
    readinessProbe: {httpGet: {path: /, port: http}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: kube-system, labels: {kubernetes.io/cluster-service: "true"}}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
`,
    });
    await k.ok(['run', 'target', '--image=busybox', '--command', '--', 'sleep', '3600']);
    await waitFor('the web endpoint to be ready', async () => (await k.ok(['get', 'endpoints', 'web', '-n', 'kube-system', '-o', 'jsonpath={.subsets[0].addresses[0].ip}'])).trim() !== '', 30_000);
  });

  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
    if (www) await removeDir(www);
  });

  for (const version of VERSIONS) {
    describe(`kubectl ${version}`, () => {
      const bin = kubectlBinary(version);
      const kv = () => kubectlFor(server.kubeconfig, version);

      it('cluster-info links a cluster Service, and kubectl proxy reaches it', async () => {
        const info = await kv().ok(['cluster-info']);
        const link = /web is running at (https:\/\/\S+)/.exec(info.replace(/\x1b\[[0-9;]*m/g, ''));
        assert.ok(link, info);
        const path = new URL(link[1]).pathname;
        assert.equal(path, '/api/v1/namespaces/kube-system/services/web:http/proxy');
        const proxy = new Background(bin, ['--kubeconfig', server.kubeconfig, 'proxy', '--port=0']);
        try {
          const [, address] = await proxy.until(/Starting to serve on (\S+)/, 'kubectl proxy to listen');
          const page = await httpGet(`http://${address}${path}/`);
          assert.equal(page.status, 200, page.body);
          // the page's absolute link is rewritten to go through the proxy
          assert.equal(page.body, `<html><a href="${path}/about.html">about</a></html>\n`);
          const missing = await httpGet(`http://${address}/api/v1/namespaces/kube-system/services/web:nosuch/proxy/`);
          assert.equal(missing.status, 503);
          assert.equal(JSON.parse(missing.body).message, 'no endpoints available for service "web:nosuch"');
        } finally {
          await proxy.stop();
        }
      });

      it('debug adds an ephemeral container, with logs and with -i attached', async () => {
        const tag = version.replace('.', '');
        await kv().ok(['wait', '--for=condition=Ready', 'pod/target', '--timeout=60s']);
        await kv().ok(['debug', 'target', '--image=busybox', '-c', `dbg${tag}`, '--', 'echo', `hi from ${version}`]);
        const logs = await waitFor('the ephemeral container to log', async () => (await kv().exec(['logs', 'target', '-c', `dbg${tag}`])).stdout || undefined);
        assert.equal(logs, `hi from ${version}\n`);
        const attached = await kv().exec(['debug', '-i', 'target', '--image=busybox', '-c', `dbgi${tag}`, '--', 'sh'], { input: 'echo inside-$((40+2))\nexit 0\n' });
        assert.equal(attached.code, 0, attached.stderr);
        assert.match(attached.stdout, /^inside-42$/m);
      });
    });
  }
});
