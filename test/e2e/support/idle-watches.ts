import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

/**
 * Opens `count` idle watches (ConfigMaps in namespaces nobody writes to) on
 * an API server over HTTP/1.1, one TLS connection each, as many Go clients
 * without HTTP/2 would. Used by test/e2e/idle-watches.test.ts and `npm run
 * bench -- overload`, as its own process (`node --import tsx
 * idle-watches.ts KUBECONFIG COUNT`, run under a raised `ulimit -n`): it
 * prints `OPENED n` as watches open, `HELD n` once all are, and `ERROR …`
 * (then exits 1) when one is refused or closed; SIGTERM closes them all.
 */
export interface IdleWatches {
  /** Resolves once every watch has its 200 and headers. */
  opened: Promise<void>;
  /** Watches open now. */
  open(): number;
  close(): void;
}

/**
 * An agent for thousands of connections to the API server of an admin
 * kubeconfig: unlimited sockets, resumed TLS sessions (cheap handshakes for
 * both sides) and one secure context shared by every connection (with
 * ca/cert/key each connection would parse its own).
 */
export function manyConnectionsAgent(kubeconfig: string): { url: URL; agent: https.Agent } {
  const kc = parse(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const b64 = (s: string) => Buffer.from(s, 'base64');
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: Infinity,
    maxCachedSessions: 1000,
    secureContext: tls.createSecureContext({
      ca: b64(kc.clusters[0]!.cluster['certificate-authority-data']),
      cert: b64(kc.users[0]!.user['client-certificate-data']),
      key: b64(kc.users[0]!.user['client-key-data']),
    }),
  });
  return { url: new URL(kc.clusters[0]!.cluster.server), agent };
}

export function openIdleWatches(kubeconfig: string, count: number, opts: { concurrency?: number; onProgress?: (n: number) => void; onError?: (message: string) => void } = {}): IdleWatches {
  const { url, agent } = manyConnectionsAgent(kubeconfig);
  let open = 0;
  let closing = false;
  const requests = new Set<import('node:http').ClientRequest>();
  const fail = (message: string) => {
    if (!closing) opts.onError?.(message);
  };
  const watch = (i: number) =>
    new Promise<void>((resolve) => {
      const req = https.get({ host: url.hostname, port: url.port, agent, path: `/api/v1/namespaces/idle-${i % 10}/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=3600` }, (res) => {
        if (res.statusCode !== 200) {
          fail(`watch ${i} answered ${res.statusCode}`);
          res.resume();
          return resolve();
        }
        open++;
        if (open % 1000 === 0) opts.onProgress?.(open);
        res.on('data', () => {});
        res.on('close', () => {
          open--;
          fail(`watch ${i} was closed by the server`);
        });
        resolve();
      });
      requests.add(req);
      req.on('error', (err) => {
        fail(`watch ${i}: ${err.message}`);
        resolve();
      });
    });
  const opened = (async () => {
    let next = 0;
    const worker = async () => {
      while (next < count && !closing) await watch(next++);
    };
    await Promise.all(Array.from({ length: opts.concurrency ?? 100 }, worker));
  })();
  return {
    opened,
    open: () => open,
    close() {
      closing = true;
      for (const req of requests) req.destroy();
      agent.destroy();
    },
  };
}

/** One connection per watch on both sides: a command prefix raising the soft limit on open files (up to the hard one). */
export const RAISED_FD_LIMIT = ['sh', '-c', 'ulimit -n 40000 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"', 'sh'];

/** A process's resident memory, from /proc. */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

/**
 * Runs this file as its own process (with RAISED_FD_LIMIT) holding `count`
 * idle watches; `held` resolves once all are open and rejects if one fails.
 */
export function spawnIdleWatchHolder(kubeconfig: string, count: number): { held: Promise<void>; stop(): Promise<void> } {
  const child = spawn(RAISED_FD_LIMIT[0]!, [...RAISED_FD_LIMIT.slice(1), process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url), kubeconfig, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = once(child, 'exit');
  const held = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/^ERROR /m.test(out)) reject(new Error(`the watch holder failed: ${/^ERROR .*$/m.exec(out)?.[0]}`));
      else if (new RegExp(`^HELD ${count}$`, 'm').test(out)) resolve();
    });
    void exited.then(() => reject(new Error(`the watch holder exited:\n${out.slice(-2000)}\n${err.slice(-2000)}`)));
  });
  held.catch(() => {});
  return {
    held,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [kubeconfig, count] = process.argv.slice(2);
  const watches = openIdleWatches(kubeconfig!, Number(count), {
    onProgress: (n) => process.stdout.write(`OPENED ${n}\n`),
    onError: (message) => {
      process.stdout.write(`ERROR ${message}\n`);
      process.exit(1);
    },
  });
  process.on('SIGTERM', () => {
    watches.close();
    process.exit(0);
  });
  await watches.opened;
  process.stdout.write(`HELD ${watches.open()}\n`);
}
