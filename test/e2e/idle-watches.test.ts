import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import tls from 'node:tls';
import { kubectlFor, removeDir, startServer, type ServerProcess } from './harness.js';
import { RAISED_FD_LIMIT, rssBytes, spawnIdleWatchHolder } from './support/idle-watches.js';

const WATCHES = Number(process.env.SKIFF_E2E_IDLE_WATCHES ?? 10_000);
const TRICKLERS = 20;
function adminGet(server: ServerProcess, path: string): Promise<{ status: number; ms: number }> {
  const pki = join(server.dataDir, 'pki');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port: server.port, path, agent: false, ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      })
      .on('error', reject);
  });
}

async function p99Of(server: ServerProcess, path: string, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await adminGet(server, path);
    assert.equal(r.status, 200);
    times.push(r.ms);
  }
  times.sort((a, b) => a - b);
  return times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)]!;
}

/** A client sending a request's headers one byte a second; resolves with what it got once the server closes the connection. */
function trickle(server: ServerProcess): { done: Promise<{ sent: number; total: number; received: string }>; stop(): void } {
  const socket = tls.connect({ host: '127.0.0.1', port: server.port, ca: readFileSync(join(server.dataDir, 'pki', 'ca.crt')) });
  const request = `GET /version HTTP/1.1\r\nHost: skiff\r\nX-Padding: ${'a'.repeat(1000)}\r\n\r\n`;
  let sent = 0;
  let received = '';
  let timer: ReturnType<typeof setInterval> | undefined;
  socket.on('data', (d: Buffer) => (received += d.toString()));
  socket.on('error', () => {});
  socket.once('secureConnect', () => {
    timer = setInterval(() => {
      if (!socket.destroyed && sent < request.length) socket.write(request[sent++]!);
    }, 1000);
  });
  // a reset is a way to be cut off too: 'error' is followed by 'close'
  const done = new Promise<{ sent: number; total: number; received: string }>((resolve) =>
    socket.once('close', () => {
      clearInterval(timer);
      resolve({ sent, total: request.length, received });
    }),
  );
  return {
    done,
    stop() {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

describe('10,000 idle watches and slow clients, with skiff apiserver', () => {
  it('holds 10,000 idle watches with bounded server memory while other requests answer, and cuts off clients trickling their headers', async () => {
    const server = await startServer({ command: 'apiserver', wrap: RAISED_FD_LIMIT });
    const pid = server.proc.pid!;
    const tricklers: ReturnType<typeof trickle>[] = [];
    let holder: ReturnType<typeof spawnIdleWatchHolder> | undefined;
    try {
      const k = kubectlFor(server.kubeconfig);
      // clients sending their headers a byte a second, from the start: they must not tie anything up
      for (let i = 0; i < TRICKLERS; i++) tricklers.push(trickle(server));
      await k.ok(['get', 'nodes']);
      const p99Before = await p99Of(server, '/api/v1/nodes', 50);
      const rssBefore = rssBytes(pid);

      const opening = performance.now();
      holder = spawnIdleWatchHolder(server.kubeconfig, WATCHES);
      await holder.held;
      const openingSeconds = (performance.now() - opening) / 1000;
      const metrics = await k.ok(['get', '--raw', '/metrics']);
      const open = [...metrics.matchAll(/^apiserver_longrunning_requests\{verb="WATCH",resource="configmaps"\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
      assert.ok(open >= WATCHES, `the server counts ${open} open ConfigMap watches`);
      const rssHeld = rssBytes(pid);
      const heap = Number(/^nodejs_heap_size_used_bytes (\d+)/m.exec(metrics)?.[1] ?? 0);
      const perWatch = (rssHeld - rssBefore) / WATCHES;

      // another client's requests still answer: the admin (kubectl) and a p99 figure beside the one before
      await k.ok(['get', 'nodes']);
      await k.ok(['create', 'configmap', 'during', '-n', 'default']);
      const p99During = await p99Of(server, '/api/v1/nodes', 50);
      process.stdout.write(
        `# ${WATCHES} idle watches: server RSS ${(rssBefore / 2 ** 20).toFixed(0)} → ${(rssHeld / 2 ** 20).toFixed(0)} MiB, ` +
          `${(perWatch / 1024).toFixed(1)} KiB per watch (its TLS connection included), heap used ${(heap / 2 ** 20).toFixed(0)} MiB; ` +
          `admin GET /api/v1/nodes p99 ${p99Before.toFixed(1)} ms before, ${p99During.toFixed(1)} ms while held; opened in ${openingSeconds.toFixed(0)} s\n`,
      );
      // bounded: a watch costs its connection and a small watcher, far below the 1,000-event/16 MiB backlog it may hold
      assert.ok(perWatch < 256 * 1024, `${(perWatch / 1024).toFixed(1)} KiB per idle watch`);
      assert.equal(server.proc.exitCode, null);

      // the trickling clients are cut off at the headers timeout (32 s), long before they could finish
      const cut = await Promise.all(tricklers.map((t) => t.done));
      for (const c of cut) {
        assert.ok(c.sent < c.total, `a trickler sent its whole request (${c.sent} bytes)`);
        assert.match(c.received, /^(HTTP\/1\.1 408|$)/);
      }
      assert.equal((await adminGet(server, '/readyz')).status, 200);
    } finally {
      for (const t of tricklers) t.stop();
      await holder?.stop();
      await server.stop();
      await removeDir(server.dataDir);
    }
  });
});
