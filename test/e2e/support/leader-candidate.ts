/**
 * One leader-election candidate as its own process, for the leader-election
 * e2e test: `node --import tsx leader-candidate.ts <kubeconfig> <identity>
 * <lease-name> <leaseMs> <renewMs> <retryMs>`. Prints `LEADING <id> <ms>` and
 * `STOPPED <id> <ms>` (epoch milliseconds) and runs until SIGTERM.
 */
import { Client } from '../../../src/client/rest/client.js';
import { loadKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { runLeaderElection } from '../../../src/client/leaderelection/leader-election.js';

const [kubeconfig, identity, leaseName, leaseMs, renewMs, retryMs] = process.argv.slice(2);
if (!retryMs) {
  process.stderr.write('usage: leader-candidate <kubeconfig> <identity> <lease-name> <leaseMs> <renewMs> <retryMs>\n');
  process.exit(2);
}

const say = (what: string): void => {
  process.stdout.write(`${what} ${identity} ${Date.now()}\n`);
};

const ac = new AbortController();
process.once('SIGTERM', () => ac.abort());
const client = new Client(loadKubeconfig(kubeconfig), { component: `candidate-${identity}` });
say('CANDIDATE');
await runLeaderElection({
  lease: { namespace: 'kube-system', name: leaseName },
  identity,
  client,
  signal: ac.signal,
  leaseDurationMs: Number(leaseMs),
  renewDeadlineMs: Number(renewMs),
  retryPeriodMs: Number(retryMs),
  onStartedLeading: (signal) =>
    new Promise<void>((resolve) => {
      say('LEADING');
      signal.addEventListener('abort', () => resolve(), { once: true });
    }),
  onStoppedLeading: () => say('STOPPED'),
  onError: (err) => process.stderr.write(`${identity}: ${err instanceof Error ? err.message : String(err)}\n`),
});
client.close();
