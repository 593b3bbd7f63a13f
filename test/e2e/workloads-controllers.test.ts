import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { SIM_EXIT_CODE_LABEL, SIM_RUN_MS_LABEL, WorkloadSim } from './workload-sim.js';
import { Client } from '../../src/client/rest/client.js';
import { loadKubeconfig } from '../../src/client/rest/kubeconfig.js';

/**
 * DaemonSet, StatefulSet, Job and CronJob controllers inside `skiff server`,
 * driven with the real kubectl. The scheduler and kubelets are replaced by
 * WorkloadSim (simulated nodes that bind and run pods), so the tests run
 * concurrently, each in its own namespace.
 */
describe('workload controllers', { concurrency: true }, () => {
  let server: ServerProcess;
  let client: Client;
  let kubectl: ReturnType<typeof kubectlFor>;
  let sim: WorkloadSim;
  let simRun: Promise<void>;
  const ac = new AbortController();

  before(async () => {
    server = await startServer({ command: 'server', args: ['--disable', 'kubelet,scheduler,proxy'] });
    client = new Client(loadKubeconfig(server.kubeconfig), { component: 'e2e-sim', qps: -1 });
    kubectl = kubectlFor(server.kubeconfig);
    sim = new WorkloadSim(client);
    for (const n of ['n1', 'n2', 'n3']) await sim.addNode(n, { disk: 'ssd' });
    await sim.addNode('n4', { disk: 'ssd' }, [{ key: 'dedicated', value: 'special', effect: 'NoSchedule' }]);
    await sim.addNode('n5', { disk: 'hdd' });
    simRun = sim.run(ac.signal);
  });
  after(async () => {
    ac.abort();
    await simRun;
    client?.close();
    if (process.env.SKIFF_E2E_LOGS) console.error(server?.logs());
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  const podsIn = async (ns: string, selector: string): Promise<Pod[]> => (await kubectl.json<{ items: Pod[] }>(['get', 'pods', '-n', ns, '-l', selector])).items;
  const namespace = (ns: string) => kubectl.ok(['create', 'namespace', ns]);

  it('DaemonSet: one pod per selected node, none on a tainted node until tolerated; rolling update', async () => {
    await namespace('ds');
    await kubectl.ok(['apply', '-n', 'ds', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'agent' },
        spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'a', image: 'agent:v1' }] } } },
      }),
    });
    await kubectl.ok(['rollout', 'status', 'daemonset/agent', '-n', 'ds', '--timeout=90s']);
    const pods = await podsIn('ds', 'app=agent');
    assert.deepEqual(pods.map((p) => p.spec?.nodeName).sort(), ['n1', 'n2', 'n3'], 'not on tainted n4, not on unselected n5');
    for (const p of pods) {
      assert.equal(p.metadata?.ownerReferences?.[0].kind, 'DaemonSet');
      assert.ok(p.metadata?.labels?.['controller-revision-hash']);
      assert.equal(p.metadata?.labels?.['pod-template-generation'], '1');
      assert.deepEqual(p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0].matchFields, [{ key: 'metadata.name', operator: 'In', values: [p.spec?.nodeName] }]);
    }
    const ds = await kubectl.json<{ status: Record<string, number> }>(['get', 'ds', 'agent', '-n', 'ds']);
    assert.equal(ds.status.desiredNumberScheduled, 3);
    assert.equal(ds.status.numberReady, 3);
    assert.equal(ds.status.numberMisscheduled, 0);
    // A toleration for the taint (and a new image) rolls the pods one node at a time and adds n4.
    await kubectl.ok(['patch', 'ds', 'agent', '-n', 'ds', '--type=merge', '-p', JSON.stringify({ spec: { template: { spec: { tolerations: [{ key: 'dedicated', operator: 'Exists' }], containers: [{ name: 'a', image: 'agent:v2' }] } } } })]);
    await kubectl.ok(['rollout', 'status', 'daemonset/agent', '-n', 'ds', '--timeout=90s']);
    await waitFor('4 updated daemon pods', async () => {
      const now = (await podsIn('ds', 'app=agent')).filter((p) => !p.metadata?.deletionTimestamp);
      return now.length === 4 && now.every((p) => p.spec?.containers[0].image === 'agent:v2') && now.map((p) => p.spec?.nodeName).sort().join() === 'n1,n2,n3,n4';
    });
    const history = await kubectl.ok(['rollout', 'history', 'daemonset/agent', '-n', 'ds']);
    assert.match(history, /1\s.*\n.*2/s);
  });

  it('StatefulSet: web-0..2 created in order with claims; partitioned rolling update', async () => {
    await namespace('sts');
    await kubectl.ok(['apply', '-n', 'sts', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'web' },
        spec: {
          serviceName: 'web',
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1' }] } },
          volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        },
      }),
    });
    await kubectl.ok(['rollout', 'status', 'statefulset/web', '-n', 'sts', '--timeout=90s']);
    const order = sim.log.filter((l) => l.includes(' sts/web-'));
    for (const [prev, next] of [['web-0', 'web-1'], ['web-1', 'web-2']]) {
      assert.ok(order.indexOf(`ready sts/${prev}`) >= 0 && order.indexOf(`ready sts/${prev}`) < order.indexOf(`seen sts/${next}`), `${next} after ${prev} is ready: ${order.join(', ')}`);
    }
    const pods = await podsIn('sts', 'app=web');
    assert.deepEqual(pods.map((p) => p.metadata?.name).sort(), ['web-0', 'web-1', 'web-2']);
    for (const p of pods) {
      assert.equal(p.metadata?.labels?.['statefulset.kubernetes.io/pod-name'], p.metadata?.name);
      assert.equal(p.metadata?.labels?.['apps.kubernetes.io/pod-index'], p.metadata?.name?.slice(4));
      assert.equal(p.spec?.hostname, p.metadata?.name);
      assert.equal(p.spec?.volumes?.find((v) => v.name === 'www')?.persistentVolumeClaim?.claimName, `www-${p.metadata?.name}`);
    }
    const pvcs = await kubectl.ok(['get', 'pvc', '-n', 'sts', '-o', 'name']);
    assert.deepEqual(pvcs.trim().split('\n').sort(), ['persistentvolumeclaim/www-web-0', 'persistentvolumeclaim/www-web-1', 'persistentvolumeclaim/www-web-2']);

    await kubectl.ok(['patch', 'sts', 'web', '-n', 'sts', '--type=merge', '-p', '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":1}}}}']);
    await kubectl.ok(['set', 'image', 'statefulset/web', 'nginx=nginx:2', '-n', 'sts']);
    const out = await kubectl.ok(['rollout', 'status', 'statefulset/web', '-n', 'sts', '--timeout=90s']);
    assert.match(out, /partitioned roll out complete: 2 new pods have been updated/);
    const images = Object.fromEntries((await podsIn('sts', 'app=web')).map((p) => [p.metadata?.name, p.spec?.containers[0].image]));
    assert.deepEqual(images, { 'web-0': 'nginx:1', 'web-1': 'nginx:2', 'web-2': 'nginx:2' });
    const sts = await kubectl.json<{ status: Record<string, unknown> }>(['get', 'sts', 'web', '-n', 'sts']);
    assert.equal(sts.status.updatedReplicas, 2);
    assert.equal(sts.status.currentReplicas, 1);
    assert.notEqual(sts.status.currentRevision, sts.status.updateRevision);
    // Deleting the partition finishes the rollout; currentRevision catches up.
    await kubectl.ok(['patch', 'sts', 'web', '-n', 'sts', '--type=merge', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}']);
    await kubectl.ok(['rollout', 'status', 'statefulset/web', '-n', 'sts', '--timeout=90s']);
    const done = await kubectl.json<{ status: Record<string, unknown> }>(['get', 'sts', 'web', '-n', 'sts']);
    assert.equal(done.status.currentRevision, done.status.updateRevision);
    // Scale down removes the highest ordinal.
    await kubectl.ok(['scale', 'statefulset/web', '-n', 'sts', '--replicas=2']);
    await waitFor('web-2 removed', async () => (await podsIn('sts', 'app=web')).map((p) => p.metadata?.name).sort().join() === 'web-0,web-1');
  });

  const jobManifest = (name: string, spec: Record<string, unknown>, exitCode: number, runMs = 300) =>
    JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name },
      spec: { ...spec, template: { metadata: { labels: { [SIM_EXIT_CODE_LABEL]: String(exitCode), [SIM_RUN_MS_LABEL]: String(runMs) } }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
    });
  const getJob = (ns: string, name: string) => kubectl.json<Job>(['get', 'job', name, '-n', ns]);
  const condition = (job: Job, type: string) => job.status?.conditions?.find((c) => c.type === type && c.status === 'True');

  it('Job: completions 5 / parallelism 2 completes, never more than 2 active', async () => {
    await namespace('job');
    await kubectl.ok(['apply', '-n', 'job', '-f', '-'], { input: jobManifest('pi', { completions: 5, parallelism: 2 }, 0) });
    let maxActive = 0;
    const job = await waitFor('job complete', async () => {
      const j = await getJob('job', 'pi');
      maxActive = Math.max(maxActive, j.status?.active ?? 0);
      return condition(j, 'Complete') ? j : undefined;
    }, 30_000);
    assert.ok(maxActive <= 2 && maxActive > 0, `max active ${maxActive}`);
    assert.equal(job.status?.succeeded, 5);
    assert.equal(job.status?.failed ?? 0, 0);
    assert.equal(condition(job, 'Complete')?.reason, 'CompletionsReached');
    assert.ok(condition(job, 'SuccessCriteriaMet'));
    assert.ok(job.status?.completionTime && job.status.startTime);
    await kubectl.ok(['wait', '--for=condition=complete', 'job/pi', '-n', 'job', '--timeout=5s']);
    const pods = await podsIn('job', 'batch.kubernetes.io/job-name=pi');
    assert.equal(pods.length, 5);
    assert.ok(pods.every((p) => !p.metadata?.finalizers?.includes('batch.kubernetes.io/job-tracking')), 'tracking finalizers removed');
    const events = await kubectl.ok(['get', 'events', '-n', 'job', '--field-selector', 'involvedObject.name=pi']);
    assert.match(events, /SuccessfulCreate/);
    assert.match(events, /Completed/);
  });

  it('Job: failing pods back off and hit backoffLimit; a FailJob rule fails at once', async () => {
    await namespace('jobfail');
    await kubectl.ok(['apply', '-n', 'jobfail', '-f', '-'], { input: jobManifest('flaky', { backoffLimit: 1 }, 1, 100) });
    await kubectl.ok(['apply', '-n', 'jobfail', '-f', '-'], {
      input: jobManifest('fatal', { backoffLimit: 6, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } }] } }, 42, 100),
    });
    const fatal = await waitFor('fatal job failed', async () => condition(await getJob('jobfail', 'fatal'), 'Failed') && getJob('jobfail', 'fatal'), 15_000);
    assert.equal(condition(fatal, 'Failed')?.reason, 'PodFailurePolicy');
    assert.match(condition(fatal, 'Failed')?.message ?? '', /Container main for pod jobfail\/fatal-\w+ failed with exit code 42 matching FailJob rule at index 0/);
    assert.equal(fatal.status?.failed, 1);
    const started = Date.now();
    const flaky = await waitFor('flaky job failed', async () => condition(await getJob('jobfail', 'flaky'), 'Failed') && getJob('jobfail', 'flaky'), 30_000);
    assert.equal(condition(flaky, 'Failed')?.reason, 'BackoffLimitExceeded');
    assert.equal(condition(flaky, 'FailureTarget')?.reason, 'BackoffLimitExceeded');
    assert.equal(flaky.status?.failed, 2);
    // The second pod waited out the 10 s backoff after the first failure.
    const pods = (await podsIn('jobfail', 'batch.kubernetes.io/job-name=flaky')).sort((a, b) => (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? ''));
    assert.equal(pods.length, 2);
    assert.ok(Date.parse(pods[1].metadata!.creationTimestamp!) - Date.parse(pods[0].metadata!.creationTimestamp!) >= 9_000, 'backoff between attempts');
    assert.ok(Date.now() - started < 30_000);
  });

  it('Job: Indexed completion mode', async () => {
    await namespace('indexed');
    await kubectl.ok(['apply', '-n', 'indexed', '-f', '-'], { input: jobManifest('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' }, 0) });
    const job = await waitFor('indexed job complete', async () => condition(await getJob('indexed', 'idx'), 'Complete') && getJob('indexed', 'idx'), 30_000);
    assert.equal(job.status?.completedIndexes, '0-2');
    assert.equal(job.status?.succeeded, 3);
    const pods = await podsIn('indexed', 'batch.kubernetes.io/job-name=idx');
    const indexes = pods.map((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index']).sort();
    assert.deepEqual(indexes, ['0', '1', '2']);
    for (const p of pods) {
      const i = p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'];
      assert.equal(p.spec?.hostname, `idx-${i}`);
      assert.ok(p.spec?.containers[0].env?.some((e) => e.name === 'JOB_COMPLETION_INDEX'));
    }
  });

  it('CronJob: a missed start creates the scheduled Job; create job --from; history and lastSuccessfulTime', async () => {
    await namespace('cron');
    await kubectl.ok(['apply', '-n', 'cron', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'tick' },
        spec: {
          schedule: '*/1 * * * *',
          startingDeadlineSeconds: 600,
          successfulJobsHistoryLimit: 1,
          jobTemplate: { spec: { template: { metadata: { labels: { [SIM_EXIT_CODE_LABEL]: '0', [SIM_RUN_MS_LABEL]: '200' } }, spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } },
        },
      }),
    });
    // Pretend the last run was 3 minutes ago: the controller must run the latest missed minute, once.
    const cronJobs = client.resource<Record<string, unknown> & { metadata?: { name?: string } }>({ group: 'batch', version: 'v1', resource: 'cronjobs' }).namespace('cron');
    const cj = await cronJobs.get('tick');
    const lastMinute = Math.floor(Date.now() / 60_000) * 60_000;
    await cronJobs.updateStatus({ ...cj, status: { lastScheduleTime: new Date(lastMinute - 3 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z') } });
    const scheduled = await waitFor('scheduled job', async () => {
      const jobs = (await kubectl.json<{ items: Job[] }>(['get', 'jobs', '-n', 'cron'])).items;
      return jobs.find((j) => j.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']);
    }, 15_000);
    const minutes = Number(scheduled.metadata!.name!.slice('tick-'.length));
    assert.ok(minutes >= lastMinute / 60_000, `the latest missed start runs: ${scheduled.metadata?.name}`);
    assert.equal(new Date(minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z'), scheduled.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']);
    assert.equal(scheduled.metadata?.ownerReferences?.[0].kind, 'CronJob');

    await kubectl.ok(['create', 'job', 'manual', '--from=cronjob/tick', '-n', 'cron']);
    await waitFor('both jobs complete and the older pruned to the history limit', async () => {
      const jobs = (await kubectl.json<{ items: Job[] }>(['get', 'jobs', '-n', 'cron'])).items.filter((j) => !j.metadata?.deletionTimestamp);
      return jobs.length === 1 && condition(jobs[0], 'Complete');
    }, 20_000);
    const status = await waitFor('lastSuccessfulTime', async () => {
      const c = await kubectl.json<{ status?: { lastSuccessfulTime?: string; active?: unknown[]; lastScheduleTime?: string } }>(['get', 'cronjob', 'tick', '-n', 'cron']);
      return c.status?.lastSuccessfulTime && !c.status.active ? c.status : undefined;
    });
    assert.ok(status.lastScheduleTime);
    const events = await kubectl.ok(['get', 'events', '-n', 'cron', '--field-selector', 'involvedObject.name=tick']);
    assert.match(events, /SuccessfulCreate/);
    assert.match(events, /SawCompletedJob/);
  });
});
