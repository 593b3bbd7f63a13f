import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { missingCommand, skipUnless } from '../../src/testing/requirements.js';
import { kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const CHROMIUM = '/usr/bin/chromium';
const requirements = skipUnless(missingCommand(CHROMIUM, ['--headless', '--no-sandbox', '--version'], 'apt install chromium'));
/** Screenshots land here, named in the test's diagnostics. */
const OUTPUT = process.env.SKIFF_TEST_OUTPUT ?? join(tmpdir(), 'skiff-test-output');
const LANES = ['client', 'kube-apiserver', 'storage', 'kube-controller-manager', 'kube-scheduler', 'kubelet', 'kube-proxy'];

describe('web dashboard at /ui/ (headless Chromium)', requirements, () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  let browser: Browser;

  /** `skiff dashboard …`'s login link. */
  async function loginLink(args: string[] = []): Promise<string> {
    const out = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'dashboard', '--kubeconfig', server.kubeconfig, ...args]);
    assert.equal(out.code, 0, out.stderr);
    const link = out.stdout.trim();
    assert.match(link, /^https:\/\/127\.0\.0\.1:\d+\/ui\/#token=/);
    return link;
  }

  async function open(link: string): Promise<Page> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1500, height: 1000 } });
    const page = await context.newPage();
    await page.goto(link);
    return page;
  }

  before(async () => {
    if (!existsSync(join(ROOT, 'web/dist/index.html'))) {
      const built = await run('npm', ['run', 'build:web'], { timeoutMs: 120_000 });
      assert.equal(built.code, 0, built.stderr);
    }
    server = await startServer();
    k = kubectlFor(server.kubeconfig);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    await mkdir(OUTPUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('logs in with the printed link, shows the cluster live, and draws a Deployment\'s journey across every component lane', async (t) => {
    // create once the controllers watch (an object they first see in their initial list has no watch delivery to draw)
    await waitFor('the node Ready and the controller manager running', async () =>
      (await k.exec(['get', 'serviceaccount', 'default'])).code === 0 && /True/.test((await k.exec(['get', 'nodes', '-o', 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}'])).stdout), 60_000);
    await k.ok(['create', 'deployment', 'web', '--image=busybox', '--replicas=3', '--', 'sleep', '3600']);
    await k.ok(['rollout', 'status', 'deployment/web', '--timeout=90s']);
    const page = await open(await loginLink());

    await page.getByTestId('username').getByText('system:serviceaccount:kube-system:skiff-dashboard').waitFor();
    const nodes = page.getByTestId('nodes');
    await nodes.getByText('Ready', { exact: true }).first().waitFor();
    const pods = page.getByTestId('pods');
    await waitFor('three web pods Running in the pods table', async () => (await pods.locator('tr', { hasText: /web-/ }).filter({ hasText: 'Running' }).count()) === 3, 30_000);
    assert.equal(page.url().includes('token='), false, 'the token is taken out of the address bar');

    await page.getByTestId('deployments').getByRole('link', { name: 'web' }).click();
    await page.getByTestId('object-name').getByText('web').waitFor();
    await page.getByTestId('tab-yaml').click();
    await page.getByTestId('yaml').getByText('kind: Deployment').waitFor();
    await page.getByTestId('tab-journey').click();
    const journey = page.getByTestId('journey');
    await journey.waitFor();
    for (const lane of LANES) assert.equal(await journey.locator(`g.lane[data-lane="${lane}"]`).count(), 1, `lane ${lane}`);
    // the create: kubectl → API server, commit, then a watch delivery to the controller manager
    await journey.locator('g.step.call[data-from="client"][data-to="kube-apiserver"]').first().waitFor();
    await journey.locator('g.step.commit').first().waitFor();
    await waitFor('a watch delivery to the controller manager', async () => (await journey.locator('g.step.watch[data-to="kube-controller-manager"]').count()) > 0, 30_000).catch(async (err: unknown) => {
      const steps = await journey.locator('g.step').evaluateAll((els) => els.map((e) => `${e.getAttribute('class')}: ${e.textContent}`));
      throw new Error(`${String(err)}; the diagram shows:\n${steps.slice(0, 40).join('\n')}`);
    });
    // the ReplicaSet controller's create, on the critical path down to the pods
    await journey.locator('g.step.call[data-from="kube-controller-manager"]', { hasText: 'create replicasets.apps' }).first().waitFor();
    await journey.locator('g.step.watch[data-to="kube-scheduler"]').first().waitFor();
    assert.match((await journey.locator('g.step.call').first().textContent()) ?? '', /create deployments\.apps/);
    const file = join(OUTPUT, 'dashboard-journey.png');
    await page.screenshot({ path: file, fullPage: true });
    t.diagnostic(`screenshot: ${file}`);

    // live: a scale shows up on the open page, and the overview follows without a reload
    await k.ok(['scale', 'deployment/web', '--replicas=4']);
    await page.goto(`${page.url().split('#')[0]}#/`);
    await waitFor('the fourth pod to appear live', async () => (await pods.locator('tr', { hasText: /web-/ }).count()) === 4, 30_000);
    await k.ok(['create', 'deployment', 'later', '--image=busybox', '--', 'sleep', '3600']);
    await page.getByTestId('deployments').getByRole('link', { name: 'later' }).waitFor();

    // a pod's page: its owner chain and its events
    await page.goto(`${page.url().split('#')[0]}#/`);
    // click once the table has settled (the later pod Running), so the rows do not move under the click
    await waitFor('the later pod Running in the pods table', async () => (await pods.locator('tr', { hasText: /later-/ }).filter({ hasText: 'Running' }).count()) === 1, 60_000);
    const webPod = (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    await pods.getByRole('link', { name: webPod, exact: true }).click();
    await page.getByTestId('object-name').getByText(webPod).waitFor();
    await page.getByTestId('owners').getByText(/^ReplicaSet\/web-/).waitFor({ timeout: 30_000 }).catch(async (err: Error) => {
      await page.screenshot({ path: join(OUTPUT, 'dashboard-owners.png'), fullPage: true });
      throw new Error(`${err.message}\nURL ${page.url()}\n${await page.locator('body').innerText()}`.slice(0, 3000));
    });
    await page.getByTestId('owners').getByText('Deployment/web').waitFor();
    await page.getByTestId('tab-events').click();
    await page.getByTestId('events').getByText('Scheduled').waitFor();
    await page.context().close();
  });

  it('shows an RBAC-restricted user only what the API lets them read', async () => {
    await k.ok(['create', 'namespace', 'team-a']);
    await k.ok(['create', 'serviceaccount', 'viewer', '-n', 'team-a']);
    await k.ok(['create', 'rolebinding', 'viewer-view', '--clusterrole=view', '--serviceaccount=team-a:viewer', '-n', 'team-a']);
    await k.ok(['run', 'team-pod', '--image=busybox', '-n', 'team-a', '--', 'sleep', '3600']);
    await k.ok(['run', 'secret-pod', '--image=busybox', '-n', 'default', '--', 'sleep', '3600']);
    const page = await open(await loginLink(['--service-account', 'team-a/viewer', '--namespace', 'team-a']));

    await page.getByTestId('username').getByText('system:serviceaccount:team-a:viewer').waitFor();
    const pods = page.getByTestId('pods');
    await pods.getByRole('link', { name: 'team-pod' }).waitFor();
    assert.equal(await page.getByText('secret-pod').count(), 0, 'a pod of another namespace is not shown');
    await page.getByTestId('nodes').getByText(/nodes is forbidden: User "system:serviceaccount:team-a:viewer" cannot list resource "nodes"/).waitFor();
    await page.getByTestId('namespace-input').waitFor(); // may not list namespaces: types one instead

    // a deep link to an object of another namespace shows the API's refusal, not the object
    await page.goto(`${page.url().split('#')[0]}#/o/core/v1/pods/default/secret-pod/yaml`);
    await page.getByText(/pods( "secret-pod")? is forbidden: User "system:serviceaccount:team-a:viewer" cannot (get|list|watch) resource "pods" in API group "" in the namespace "default"/).waitFor();
    assert.equal(await page.getByTestId('yaml').count(), 0);
    await page.context().close();
  });

  it('serves the built files under /ui/ without data, and the API still refuses requests without a token', async () => {
    const page = await open(`https://127.0.0.1:${server.port}/ui/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const api = await page.request.get(`https://127.0.0.1:${server.port}/api/v1/namespaces/default/pods`);
    assert.ok([401, 403].includes(api.status()), `anonymous API access refused (got ${api.status()})`);
    const traversal = await page.request.get(`https://127.0.0.1:${server.port}/ui/..%2f..%2fpackage.json`);
    assert.notEqual(traversal.status(), 200);
    await page.context().close();
  });
});
