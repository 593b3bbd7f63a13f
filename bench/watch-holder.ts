import https from 'node:https';
import { manyConnectionsAgent } from '../test/e2e/support/idle-watches.js';
import { onWatchEvents } from './watch-lines.js';

/**
 * One client process of `npm run bench -- watch`'s many-watcher step (run by
 * bench/watch.ts with `fork`): it opens COUNT watches of PATH on the API
 * server, one HTTP/1.1 TLS connection each (as Go clients without HTTP/2),
 * and reports each event's arrival per watcher: `{ rv, at }` batches over
 * IPC, `at` on the monotonic clock (process.hrtime, ms) that every process
 * shares, so the parent can subtract its write times. Spreading 10,000
 * watchers over a few processes keeps one client event loop from being the
 * figure.
 *
 * argv: KUBECONFIG COUNT PATH. Messages out: { opened: n }, { arrivals:
 * [rv, at][] }, { error }. In: 'stop'.
 */
export interface HolderMessage {
  opened?: number;
  arrivals?: [number, number][];
  error?: string;
}

const hrMs = () => Number(process.hrtime.bigint()) / 1e6;

function run(kubeconfig: string, count: number, path: string): void {
  const { url, agent } = manyConnectionsAgent(kubeconfig);
  const send = (m: HolderMessage) => process.send!(m);
  let pending: [number, number][] = [];
  // arrivals go to the parent in batches: their times were taken as they came in
  const flush = setInterval(() => {
    if (pending.length === 0) return;
    send({ arrivals: pending });
    pending = [];
  }, 10);
  const requests: import('node:http').ClientRequest[] = [];
  let stopping = false;
  const watch = () =>
    new Promise<void>((resolve) => {
      const req = https.get({ host: url.hostname, port: url.port, agent, path }, (res) => {
        if (res.statusCode !== 200) {
          send({ error: `watch answered ${res.statusCode}` });
          return resolve();
        }
        onWatchEvents(res, hrMs, (rv, at) => pending.push([rv, at]));
        res.on('close', () => {
          if (!stopping) send({ error: 'a watch was closed by the server' });
        });
        resolve();
      });
      requests.push(req);
      req.on('error', (err) => {
        if (!stopping) send({ error: `watch: ${err.message}` });
        resolve();
      });
    });
  void (async () => {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        await watch();
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    send({ opened: requests.length });
  })();
  process.on('message', (m) => {
    if (m !== 'stop') return;
    stopping = true;
    clearInterval(flush);
    if (pending.length > 0) send({ arrivals: pending });
    for (const req of requests) req.destroy();
    agent.destroy();
    process.disconnect();
  });
}

const [kubeconfig, count, path] = process.argv.slice(2);
if (kubeconfig && count && path && process.send) run(kubeconfig, Number(count), path);
