import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { firstNodeName, kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

interface PodJson {
  metadata: { name: string; finalizers?: string[]; deletionTimestamp?: string };
  status: { phase: string };
}
type PodList = { items: PodJson[] };

let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;

before(async () => {
  // a small terminated-pod threshold so the pod garbage collector has work to do
  server = await startServer({ command: 'server', args: ['--terminated-pod-gc-threshold', '2'] });
  kubectl = kubectlFor(server.kubeconfig);
  await firstNodeName(kubectl);
});

after(async () => {
  await kubectl?.exec(['delete', 'pods', '--all', '--all-namespaces', '--grace-period=0', '--force', '--wait=false']);
  await server?.stop();
  if (server) await removeDir(server.dataDir);
});

function job(name: string, namespace: string, command: string, extra = ''): string {
  return `apiVersion: batch/v1
kind: Job
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  parallelism: 2
  completions: 2
${extra}  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      containers:
      - {name: main, image: busybox, command: ["sh", "-c", "${command}"]}
`;
}

test('kubectl delete job removes its running pods completely, tracking finalizer and all', async () => {
  await kubectl.ok(['apply', '-f', '-'], { input: job('sleeper', 'default', 'sleep 3600') });
  const pods = await waitFor('2 sleeper pods Running with the tracking finalizer', async () => {
    const list = (await kubectl.json<PodList>(['get', 'pods', '-l', 'job-name=sleeper'])).items;
    return list.length === 2 && list.every((p) => p.status.phase === 'Running' && p.metadata.finalizers?.includes('batch.kubernetes.io/job-tracking')) ? list : undefined;
  }, 30_000);
  await kubectl.ok(['delete', 'job', 'sleeper']);
  await waitFor('the sleeper pods gone', async () => (await kubectl.json<PodList>(['get', 'pods', '-l', 'job-name=sleeper'])).items.length === 0, 30_000).catch(async (err: Error) =>
    assert.fail(`${err.message}: ${await kubectl.ok(['get', 'pods', '-o', 'yaml'])}`),
  );
  assert.equal(pods.length, 2);
});

test('a finished Job with ttlSecondsAfterFinished is deleted with its pods', async () => {
  await kubectl.ok(['apply', '-f', '-'], { input: job('brief', 'default', 'true', '  ttlSecondsAfterFinished: 1\n') });
  // on failure, show what the Job and its pods looked like
  const state = async (): Promise<string> =>
    `${(await kubectl.exec(['get', 'job', 'brief', '-o', 'yaml'])).stdout}\n${(await kubectl.exec(['get', 'pods', '-l', 'job-name=brief', '-o', 'yaml'])).stdout}`;
  const explain = async (err: Error): Promise<never> => assert.fail(`${err.message}:\n${await state()}`);
  await waitFor('the brief Job complete', async () => {
    const r = await kubectl.exec(['get', 'job', 'brief', '-o', 'jsonpath={.status.conditions[?(@.type=="Complete")].status}']);
    return r.stdout === 'True';
  }, 60_000).catch(explain);
  await waitFor('the brief Job deleted', async () => (await kubectl.exec(['get', 'job', 'brief'])).code !== 0, 60_000).catch(explain);
  await waitFor('its pods gone', async () => (await kubectl.json<PodList>(['get', 'pods', '-l', 'job-name=brief'])).items.length === 0, 60_000).catch(explain);
});

test('a namespace holding a running Job finishes deleting', async () => {
  await kubectl.ok(['create', 'namespace', 'batchwork']);
  await kubectl.ok(['apply', '-f', '-'], { input: job('worker', 'batchwork', 'sleep 3600') });
  await waitFor('worker pods Running', async () => {
    const list = (await kubectl.json<PodList>(['get', 'pods', '-n', 'batchwork'])).items;
    return list.length === 2 && list.every((p) => p.status.phase === 'Running');
  }, 30_000);
  await kubectl.ok(['delete', 'namespace', 'batchwork', '--wait=false']);
  await waitFor('namespace batchwork gone', async () => (await kubectl.exec(['get', 'namespace', 'batchwork'])).code !== 0, 60_000).catch(async (err: Error) =>
    assert.fail(`${err.message}: ${await kubectl.ok(['get', 'namespace', 'batchwork', '-o', 'yaml'])}`),
  );
});

test('the pod garbage collector keeps at most --terminated-pod-gc-threshold terminated pods, deleting the oldest', async () => {
  for (const n of [1, 2, 3, 4]) await kubectl.ok(['run', `done-${n}`, '--image=busybox', '--restart=Never', '--', 'true']);
  // with four terminated pods and a threshold of two, the two oldest go (the GC runs every 20 s)
  await waitFor('two terminated pods left', async () => {
    const names = (await kubectl.json<PodList>(['get', 'pods'])).items.filter((p) => p.metadata.name.startsWith('done-')).map((p) => p.metadata.name).sort();
    return JSON.stringify(names) === JSON.stringify(['done-3', 'done-4']);
  }, 60_000);
});
