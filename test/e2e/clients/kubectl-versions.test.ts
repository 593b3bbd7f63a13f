/**
 * Every installed kubectl (1.27 … 1.33) against one `skiff server` on the
 * process runtime: the watching, streaming, proxying, debugging and draining
 * verbs users reach for, each version in turn on the same cluster (one extra
 * kubelet, node-2, is the node each version drains) so the suite stays quick.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { firstMissing, missingCommand, skipUnless } from '../../../src/testing/requirements.js';
import { firstNodeName, kubectlBinary, kubectlFor, removeDir, ROOT, startServer, waitFor, type ServerProcess } from '../harness.js';

const VERSIONS = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'];
const BUSYBOX = '/usr/bin/busybox';
const requirement = skipUnless(
  firstMissing(
    existsSync(BUSYBOX) ? undefined : 'busybox is not installed (apt-get install busybox-static)',
    // `debug -it` wants a terminal on kubectl's side too: script gives it one
    missingCommand('script', ['-q', '-c', 'true', '/dev/null'], 'apt-get install bsdutils'),
  ),
);

/** A long-running kubectl (watch, follow, proxy, port-forward) whose output is awaited, then stopped. */
class Background {
  private out = '';
  private readonly proc: ChildProcess;
  private readonly exited: Promise<number | null>;

  constructor(bin: string, args: string[], stdin = false) {
    this.proc = spawn(bin, args, { stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    this.proc.stdout!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.proc.stderr!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.exited = new Promise((resolve) => this.proc.once('exit', (code) => resolve(code)));
  }

  write(text: string): void {
    this.proc.stdin!.write(text);
  }

  /** The exit code once the process ends by itself (within the deadline). */
  async exitCode(): Promise<number | null> {
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 30_000);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  get output(): string {
    return this.out;
  }

  /** Waits until the output matches, returning the match. */
  until(pattern: RegExp, what: string): Promise<RegExpExecArray> {
    return waitFor(what, () => pattern.exec(this.out) ?? (this.proc.exitCode !== null ? Promise.reject(new Error(`exited: ${this.out}`)) : undefined), 30_000, 50).catch((err: Error) => {
      throw new Error(`${err.message}\n${this.out}`);
    });
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
    this.proc.stdin?.destroy();
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
  let node2: ChildProcess | undefined;
  let node2Logs = '';
  let webPort = 0;
  let sitePort = 0;
  let www = '';
  let gates = '';

  before(async () => {
    server = await startServer();
    k = kubectlFor(server.kubeconfig);
    const node = await firstNodeName(k);
    [webPort, sitePort] = [await freePort(), await freePort()];
    www = await mkdtemp(join(tmpdir(), 'skiff-www-'));
    gates = join(www, 'gates');
    await mkdir(gates);
    await writeFile(join(www, 'index.html'), '<html><a href="/about.html">about</a></html>\n');
    const httpd = (port: number) => `[${BUSYBOX}, httpd, -f, -p, "${port}", -h, ${www}]`;
    // every pod on the first node: node-2 only ever runs what the versions drain
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: kube-system, labels: {app: web}}
spec:
  nodeName: ${node}
  containers:
  - name: web
    image: busybox
    command: ${httpd(webPort)}
    ports: [{name: http, containerPort: ${webPort}}]
    readinessProbe: {httpGet: {path: /, port: http}, periodSeconds: 1}
---
# a cluster add-on in kube-system, so \`kubectl cluster-info\` lists it
apiVersion: v1
kind: Service
metadata: {name: web, namespace: kube-system, labels: {kubernetes.io/cluster-service: "true"}}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: v1
kind: Pod
metadata: {name: site, labels: {app: site}}
spec:
  nodeName: ${node}
  containers:
  - name: site
    image: busybox
    command: ${httpd(sitePort)}
    ports: [{containerPort: ${sitePort}}]
    readinessProbe: {tcpSocket: {port: ${sitePort}}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: site}
spec:
  selector: {app: site}
  ports: [{port: 8080, targetPort: ${sitePort}}]
---
apiVersion: v1
kind: Pod
metadata: {name: target}
spec:
  nodeName: ${node}
  terminationGracePeriodSeconds: 1
  containers: [{name: target, image: busybox, command: [sleep, "3600"]}]
---
# writes a line for each file dropped in the gates directory, once it is there: what \`logs -f\` must see arrive
apiVersion: v1
kind: Pod
metadata: {name: writer}
spec:
  nodeName: ${node}
  terminationGracePeriodSeconds: 1
  containers:
  - name: writer
    image: busybox
    command: [sh, -c, 'echo ready; while true; do for f in ${gates}/*; do [ -e "$f" ] || continue; echo "line \${f##*/}"; rm -f "$f"; done; sleep 0.1; done']
`,
    });
    const rootDir = join(www, 'node-2');
    node2 = spawn(process.execPath, [join(ROOT, 'bin/skiff.js'), 'kubelet', '--container-runtime', 'process', '--kubeconfig', server.kubeconfig, '--node-name', 'node-2', '--root-dir', rootDir, '--port', '0', '--health-port', '0'], {
      cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' },
    });
    node2.stderr!.on('data', (d: Buffer) => (node2Logs = (node2Logs + d.toString()).slice(-20_000)));
    await waitFor('node-2 Ready', async () => /node-2\s+Ready/.test(await k.ok(['get', 'nodes'])), 60_000).catch((err: Error) => assert.fail(`${err.message}\n${node2Logs}`));
    await waitFor('the endpoints to be ready', async () => {
      const ready = await Promise.all([['web', 'kube-system'], ['site', 'default']].map(async ([name, ns]) => (await k.ok(['get', 'endpoints', name, '-n', ns, '-o', 'jsonpath={.subsets[0].addresses[0].ip}'])).trim() !== ''));
      return ready.every(Boolean);
    }, 60_000);
    await k.ok(['wait', '--for=condition=Ready', 'pod/target', 'pod/writer', '--timeout=60s']);
  });

  after(async () => {
    if (node2 && node2.exitCode === null && node2.signalCode === null) {
      const exited = new Promise((r) => node2!.once('exit', r));
      node2.kill('SIGTERM');
      await exited;
    }
    await server?.stop();
    if (server) await removeDir(server.dataDir);
    if (www) await removeDir(www);
  });

  for (const version of VERSIONS) {
    describe(`kubectl ${version}`, () => {
      const bin = kubectlBinary(version);
      const tag = version.replace('.', '');
      const kv = () => kubectlFor(server.kubeconfig, version);
      const background = (args: string[]) => new Background(bin, ['--kubeconfig', server.kubeconfig, ...args]);

      it('get -w lists, then prints an object created while it watches', async () => {
        await kv().ok(['create', 'configmap', `w${tag}-listed`]);
        const watch = background(['get', 'configmaps', '-w', '-o', 'name']);
        try {
          await watch.until(new RegExp(`^configmap/w${tag}-listed$`, 'm'), 'the listed object');
          await kv().ok(['create', 'configmap', `w${tag}-watched`]);
          await watch.until(new RegExp(`^configmap/w${tag}-watched$`, 'm'), 'the watched object');
        } finally {
          await watch.stop();
        }
      });

      it('logs -f prints a line the container writes after the follow began', async () => {
        const follow = background(['logs', '-f', 'writer']);
        try {
          await follow.until(/^ready$/m, 'the line written at start');
          await writeFile(join(gates, `v${tag}`), '');
          await follow.until(new RegExp(`^line v${tag}$`, 'm'), 'the line written after');
        } finally {
          await follow.stop();
        }
      });

      it('exec: stdout, stderr and the exit code', async () => {
        const r = await kv().exec(['exec', 'target', '-c', 'target', '--', 'sh', '-c', `echo out-${tag}; echo err-${tag} >&2; exit 7`]);
        assert.equal(r.code, 7, r.stderr);
        assert.equal(r.stdout, `out-${tag}\n`);
        assert.match(r.stderr, new RegExp(`^err-${tag}\n`));
        assert.match(r.stderr, /command terminated with exit code 7/);
      });

      it('port-forward carries an HTTP request to the pod and back', async () => {
        const forward = background(['port-forward', 'pod/site', `:${sitePort}`]);
        try {
          const [, local] = await forward.until(/Forwarding from 127\.0\.0\.1:(\d+)/, 'port-forward to listen');
          for (let i = 0; i < 2; i++) {
            const page = await httpGet(`http://127.0.0.1:${local}/index.html`);
            assert.equal(page.status, 200, page.body);
            assert.equal(page.body, '<html><a href="/about.html">about</a></html>\n');
          }
        } finally {
          await forward.stop();
        }
      });

      it('cluster-info links a cluster Service, and kubectl proxy reaches Services by port name and number', async () => {
        const info = await kv().ok(['cluster-info']);
        const link = /web is running at (https:\/\/\S+)/.exec(info.replace(/\x1b\[[0-9;]*m/g, ''));
        assert.ok(link, info);
        const path = new URL(link[1]).pathname;
        assert.equal(path, '/api/v1/namespaces/kube-system/services/web:http/proxy');
        const proxy = background(['proxy', '--port=0']);
        try {
          const [, address] = await proxy.until(/Starting to serve on (\S+)/, 'kubectl proxy to listen');
          const page = await httpGet(`http://${address}${path}/`);
          assert.equal(page.status, 200, page.body);
          // the page's absolute link is rewritten to go through the proxy
          assert.equal(page.body, `<html><a href="${path}/about.html">about</a></html>\n`);
          const site = await httpGet(`http://${address}/api/v1/namespaces/default/services/site:8080/proxy/`);
          assert.equal(site.status, 200, site.body);
          assert.equal(site.body, '<html><a href="/api/v1/namespaces/default/services/site:8080/proxy/about.html">about</a></html>\n');
          const missing = await httpGet(`http://${address}/api/v1/namespaces/kube-system/services/web:nosuch/proxy/`);
          assert.equal(missing.status, 503);
          assert.equal(JSON.parse(missing.body).message, 'no endpoints available for service "web:nosuch"');
        } finally {
          await proxy.stop();
        }
      });

      it('debug adds an ephemeral container, with logs and with -i attached', async () => {
        await kv().ok(['debug', 'target', '--image=busybox', '-c', `dbg${tag}`, '--', 'echo', `hi from ${version}`]);
        const logs = await waitFor('the ephemeral container to log', async () => (await kv().exec(['logs', 'target', '-c', `dbg${tag}`])).stdout || undefined, 60_000);
        assert.equal(logs, `hi from ${version}\n`);
        const attached = await kv().exec(['debug', '-i', 'target', '--image=busybox', '-c', `dbgi${tag}`, '--', 'sh'], { input: 'echo inside-$((40+2))\nexit 0\n' });
        assert.equal(attached.code, 0, attached.stderr);
        assert.match(attached.stdout, /^inside-42$/m);
      });

      it('debug -it runs the ephemeral container on a terminal of the client\'s size', async () => {
        // kubectl wants a terminal of its own for -t: script gives it one; the shell's input waits until the session is up
        const cmd = `stty cols 101 rows 31; ${bin} --kubeconfig ${server.kubeconfig} debug -it target --image=busybox -c dbgt${tag} -- sh`;
        const session = new Background('script', ['-q', '-e', '-c', cmd, '/dev/null'], true);
        try {
          await session.until(/If you don't see a command prompt/, 'the debug session to attach');
          // kubectl sends the size (one larger first, to force a redraw) as the session starts, which may be after this
          // line arrives: the shell waits for the client's size (or the test times out)
          session.write('tty; until [ "$(stty size)" = "31 101" ]; do sleep 0.1; done; echo size-$(stty size); echo inside-$((40+2)); exit 3\n');
          await session.until(/Session ended/, 'the session to end');
          assert.match(session.output, /^\/dev\/pts\/\d+\r?$/m);
          assert.match(session.output, /^size-31 101\r?$/m);
          assert.match(session.output, /^inside-42\r?$/m);
          // as upstream: an attach ends in Success whatever the container's exit code, so no fallback to logs
          assert.doesNotMatch(session.output, /falling back to streaming logs/);
          assert.equal(await session.exitCode(), 0);
        } finally {
          await session.stop();
        }
      });

      it('drain evicts the pods of a node and cordons it', async () => {
        await kv().ok(['uncordon', 'node-2']);
        const pod = `drain${tag}`;
        await kv().ok(['run', pod, '--image=busybox', `--overrides={"spec":{"nodeName":"node-2","terminationGracePeriodSeconds":1}}`, '--command', '--', 'sleep', '3600']);
        await kv().ok(['wait', '--for=condition=Ready', `pod/${pod}`, '--timeout=60s']);
        // --force: the pod has no controller to recreate it
        const r = await kv().exec(['drain', 'node-2', '--force', '--ignore-daemonsets', '--timeout=60s']);
        assert.equal(r.code, 0, r.stderr + r.stdout);
        assert.match(r.stdout, /node\/node-2 cordoned/);
        assert.match(r.stdout, new RegExp(`pod/${pod} evicted`));
        assert.match(r.stdout, /node\/node-2 drained/);
        assert.match(await kv().ok(['get', 'node', 'node-2']), /node-2\s+Ready,SchedulingDisabled/);
        assert.match(await kv().fails(['get', 'pod', pod]), new RegExp(`pods "${pod}" not found`));
      });
    });
  }
});
