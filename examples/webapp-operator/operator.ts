import * as k8s from '@kubernetes/client-node';
import { GROUP, KIND, PLURAL, VERSION, WEBAPP_CRD, type WebApp } from './crd.js';

const MANAGED_BY = 'app.kubernetes.io/managed-by';
const OPERATOR = 'webapp-operator';

export interface OperatorOptions {
  kubeConfig: k8s.KubeConfig;
  signal: AbortSignal;
  log?: (msg: string) => void;
}

/**
 * A sample operator written only with @kubernetes/client-node: it installs
 * the WebApp CRD, watches WebApps and the Deployments it made (informers),
 * and reconciles each WebApp, level-triggered, into a Deployment it owns
 * (owner reference, so deleting the WebApp garbage-collects it), then writes
 * what the Deployment reports into the WebApp's status through `/status`.
 * One key is reconciled at a time; failures (conflicts included) retry with
 * a growing delay.
 */
export class WebAppOperator {
  private readonly apps: k8s.AppsV1Api;
  private readonly custom: k8s.CustomObjectsApi;
  private readonly extensions: k8s.ApiextensionsV1Api;
  private readonly queue = new Set<string>();
  private readonly failures = new Map<string, number>();
  private wake: (() => void) | undefined;
  private readonly log: (msg: string) => void;

  constructor(private readonly opts: OperatorOptions) {
    this.apps = opts.kubeConfig.makeApiClient(k8s.AppsV1Api);
    this.custom = opts.kubeConfig.makeApiClient(k8s.CustomObjectsApi);
    this.extensions = opts.kubeConfig.makeApiClient(k8s.ApiextensionsV1Api);
    this.log = opts.log ?? (() => {});
  }

  /** Installs the CRD, waits for it to be Established, then reconciles until the signal aborts. */
  async run(): Promise<void> {
    const { kubeConfig } = this.opts;
    await this.installCrd();
    const webapps = k8s.makeInformer<WebApp & k8s.KubernetesObject>(kubeConfig, `/apis/${GROUP}/${VERSION}/${PLURAL}`, () => this.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }));
    const deployments = k8s.makeInformer<k8s.V1Deployment>(kubeConfig, '/apis/apps/v1/deployments', () => this.apps.listDeploymentForAllNamespaces({ labelSelector: `${MANAGED_BY}=${OPERATOR}` }), `${MANAGED_BY}=${OPERATOR}`);
    const onWebApp = (o: k8s.KubernetesObject) => this.enqueue(o.metadata?.namespace ?? '', o.metadata?.name ?? '');
    // a Deployment's change is its owner's business
    const onDeployment = (d: k8s.V1Deployment) => {
      const owner = d.metadata?.ownerReferences?.find((r) => r.controller && r.kind === KIND);
      if (owner) this.enqueue(d.metadata?.namespace ?? '', owner.name);
    };
    for (const verb of ['add', 'update', 'delete'] as const) {
      webapps.on(verb, onWebApp);
      deployments.on(verb, onDeployment);
    }
    // an informer whose watch fails starts over after a pause
    for (const informer of [webapps, deployments] as k8s.Informer<k8s.KubernetesObject>[]) {
      informer.on('error', () => setTimeout(() => void informer.start().catch(() => undefined), 1000).unref());
    }
    await Promise.all([webapps.start(), deployments.start()]);
    try {
      await this.work();
    } finally {
      await Promise.all([webapps.stop(), deployments.stop()]);
    }
  }

  private async installCrd(): Promise<void> {
    try {
      await this.extensions.createCustomResourceDefinition({ body: WEBAPP_CRD });
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
    for (;;) {
      const crd = await this.extensions.readCustomResourceDefinition({ name: WEBAPP_CRD.metadata!.name! });
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
      await sleep(100, this.opts.signal);
      if (this.opts.signal.aborted) return;
    }
  }

  private enqueue(namespace: string, name: string): void {
    this.queue.add(`${namespace}/${name}`);
    this.wake?.();
  }

  private async work(): Promise<void> {
    const { signal } = this.opts;
    while (!signal.aborted) {
      const [key] = this.queue;
      if (key === undefined) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        continue;
      }
      this.queue.delete(key);
      const [namespace, name] = key.split('/');
      try {
        await this.reconcile(namespace, name);
        this.failures.delete(key);
      } catch (err) {
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        this.log(`reconcile ${key} failed (${n}): ${err instanceof Error ? err.message : String(err)}`);
        setTimeout(() => this.enqueue(namespace, name), Math.min(100 * 2 ** n, 10_000)).unref();
      }
    }
  }

  /** Makes the world match one WebApp: its Deployment exists with the right image and replicas, its status says what the Deployment has. */
  async reconcile(namespace: string, name: string): Promise<void> {
    const app = (await this.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL, name }).catch(notFound)) as WebApp | undefined;
    // gone: the garbage collector removes its Deployment through the owner reference
    if (!app) return;
    const replicas = app.spec.replicas ?? 1;
    let deployment = await this.apps.readNamespacedDeployment({ name, namespace }).catch(notFound);
    if (!deployment) {
      deployment = await this.apps.createNamespacedDeployment({ namespace, body: desiredDeployment(app) });
      this.log(`created deployment ${namespace}/${name}`);
    } else {
      const container = deployment.spec?.template.spec?.containers[0];
      if (deployment.spec?.replicas !== replicas || container?.image !== app.spec.image) {
        deployment.spec!.replicas = replicas;
        deployment.spec!.template.spec!.containers[0].image = app.spec.image;
        deployment = await this.apps.replaceNamespacedDeployment({ name, namespace, body: deployment });
        this.log(`updated deployment ${namespace}/${name}`);
      }
    }
    const status = { replicas: deployment.status?.replicas ?? 0, readyReplicas: deployment.status?.readyReplicas ?? 0, observedGeneration: app.metadata.generation };
    if (JSON.stringify(app.status ?? {}) === JSON.stringify(status)) return;
    // the resourceVersion makes this a compare-and-swap: a conflict retries with fresh state
    await this.custom.replaceNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: { ...app, status } });
  }
}

/** The Deployment a WebApp wants: owned by it (controller), labelled as this operator's. */
export function desiredDeployment(app: WebApp): k8s.V1Deployment {
  const labels = { app: app.metadata.name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: app.metadata.name,
      labels: { ...labels, [MANAGED_BY]: OPERATOR },
      ownerReferences: [{ apiVersion: `${GROUP}/${VERSION}`, kind: KIND, name: app.metadata.name, uid: app.metadata.uid!, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      replicas: app.spec.replicas ?? 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: app.spec.image }] } },
    },
  };
}

function notFound(err: unknown): undefined {
  if ((err as { code?: number }).code === 404) return undefined;
  throw err;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
