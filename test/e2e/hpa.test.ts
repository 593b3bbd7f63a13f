import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

interface Hpa {
  status?: {
    currentReplicas?: number;
    desiredReplicas?: number;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** A Deployment of one pod whose container requests 100m cpu and runs `command` as a host process. */
function deployment(command: string): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'burn', namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'burn' } },
      template: {
        metadata: { labels: { app: 'burn' } },
        spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'burn', image: 'busybox', command: ['sh', '-c', command], resources: { requests: { cpu: '100m' } } }] },
      },
    },
  });
}

describe('HorizontalPodAutoscaler: kubectl autoscale scales a cpu-burning Deployment up, and back down when the load stops', () => {
  let server: ServerProcess;
  let kubectl: ReturnType<typeof kubectlFor>;

  before(async () => {
    // a 5 s sync: each failing sync (no samples yet for a new pod) is two Warning events, and the event
    // recorder's spam filter (upstream's: 25 per object, then one per 5 min) must leave room for the rescales
    server = await startServer({ args: ['--metric-resolution', '2s', '--horizontal-pod-autoscaler-sync-period', '5s'] });
    kubectl = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('a missing scale target is FailedGetScale on the autoscaler, and the controller keeps going', async () => {
    const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'nothing' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nothing' }, maxReplicas: 2 } };
    await kubectl.ok(['apply', '-f', '-'], { input: JSON.stringify(hpa) });
    const condition = await waitFor('AbleToScale=False on the autoscaler without a target', async () => {
      const h = await kubectl.json<Hpa>(['get', 'hpa', 'nothing']);
      return h.status?.conditions?.find((c) => c.type === 'AbleToScale' && c.status === 'False');
    }, 60_000, 500);
    assert.equal(condition.reason, 'FailedGetScale');
    assert.equal(condition.message, 'the HPA controller was unable to get the target\'s current scale: deployments.apps "nothing" not found');
  });

  it('scales up on cpu utilization, then down to minReplicas once the pods idle', async () => {
    const rescaleEvents = () => kubectl.ok(['get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=burn,reason=SuccessfulRescale', '-o', 'jsonpath={range .items[*]}{.source.component}: {.message}{"\\n"}{end}']);
    await kubectl.ok(['create', '-f', '-'], { input: deployment('while :; do :; done') });
    await kubectl.ok(['autoscale', 'deployment', 'burn', '--cpu-percent=50', '--min=1', '--max=3']);

    const up = await waitFor('the autoscaler to want more than one replica', async () => {
      const h = await kubectl.json<Hpa>(['get', 'hpa', 'burn']);
      return (h.status?.desiredReplicas ?? 0) > 1 ? h : undefined;
    }, 90_000, 1000);
    assert.ok((up.status?.desiredReplicas ?? 0) <= 3, 'never above --max');
    const active = up.status?.conditions?.find((c) => c.type === 'ScalingActive');
    assert.equal(active?.reason, 'ValidMetricFound');
    // events are written in the background: wait for them too
    await waitFor('the SuccessfulRescale event of the scale up', async () => /^horizontal-pod-autoscaler: New size: [23]; reason: cpu resource utilization \(percentage of request\) above target$/m.test(await rescaleEvents()), 30_000, 500);
    const table = await kubectl.ok(['get', 'hpa', 'burn']);
    assert.match(table, /^burn\s+Deployment\/burn\s+cpu: \d+%\/50%\s+1\s+3\s+\d/m);
    await waitFor('the Deployment to have more than one replica', async () => {
      const d = await kubectl.json<{ spec?: { replicas?: number } }>(['get', 'deployment', 'burn']);
      return (d.spec?.replicas ?? 0) > 1;
    }, 30_000, 500);

    // stop the load, and let the autoscaler scale down without the default 5 minute window
    await kubectl.ok(['patch', 'hpa', 'burn', '--type=merge', '-p', '{"spec":{"behavior":{"scaleDown":{"stabilizationWindowSeconds":0}}}}']);
    // a patch of the command only: re-applying the manifest would set replicas back to 1 itself
    await kubectl.ok(['patch', 'deployment', 'burn', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"burn","command":["sh","-c","sleep 3600"]}]}}}}']);
    const down = await waitFor('the autoscaler to scale back to one replica', async () => {
      const h = await kubectl.json<Hpa>(['get', 'hpa', 'burn']);
      const d = await kubectl.json<{ spec?: { replicas?: number } }>(['get', 'deployment', 'burn']);
      return h.status?.desiredReplicas === 1 && d.spec?.replicas === 1 ? h : undefined;
    }, 90_000, 1000);
    assert.equal(down.status?.conditions?.find((c) => c.type === 'ScalingActive')?.status, 'True');
    await waitFor('the SuccessfulRescale event of the scale down', async () => /^horizontal-pod-autoscaler: New size: 1; reason: All metrics below target$/m.test(await rescaleEvents()), 30_000, 500);
  });
});
