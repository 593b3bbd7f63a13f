import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const SKIFF = join(ROOT, 'bin/skiff.js');

/** An openssl key and PKCS#10 request for `subject`; returns the key path and the request as base64. */
async function opensslRequest(dir: string, name: string, subject: string): Promise<{ key: string; request: string }> {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const gen = await run('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', csr, '-subj', subject]);
  assert.equal(gen.code, 0, gen.stderr);
  return { key, request: (await readFile(csr)).toString('base64') };
}

function csrManifest(name: string, request: string, signerName: string, usages: string[]): string {
  return JSON.stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName, usages, expirationSeconds: 86400 } });
}

describe('certificate signing requests and bootstrap tokens', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  let ca: string;
  /** kubectl with only a bearer token. */
  let withToken: (token: string, args: string[]) => ReturnType<typeof run>;

  before(async () => {
    server = await startServer({ args: ['--disable', 'kubelet,scheduler'] });
    k = kubectlFor(server.kubeconfig);
    ca = join(server.dataDir, 'pki', 'ca.crt');
    withToken = (token, args) => run(k.bin, ['--kubeconfig=/dev/null', `--server=https://127.0.0.1:${server.port}`, `--certificate-authority=${ca}`, `--token=${token}`, ...args]);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('a user made through a CSR and kubectl certificate approve is authorized by RBAC', async () => {
    const { key, request } = await opensslRequest(server.dataDir, 'jane', '/CN=jane/O=developers');
    await k.ok(['apply', '-f', '-'], { input: csrManifest('jane', request, 'kubernetes.io/kube-apiserver-client', ['client auth']) });
    const pending = await k.ok(['get', 'csr', 'jane']);
    assert.match(pending, /NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION/);
    assert.match(pending, /jane\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+skiff-admin\s+24h\s+Pending/);
    assert.match(await k.ok(['certificate', 'approve', 'jane']), /certificatesigningrequest.certificates.k8s.io\/jane approved/);
    const issued = await waitFor('the certificate', async () => {
      const csr = await k.json<{ status: { certificate?: string; conditions: { type: string; reason: string; message: string }[] } }>(['get', 'csr', 'jane']);
      return csr.status.certificate ? csr : undefined;
    });
    assert.deepEqual(issued.status.conditions.map((c) => [c.type, c.reason, c.message]), [['Approved', 'KubectlApprove', 'This CSR was approved by kubectl certificate approve.']]);
    assert.match(await k.ok(['get', 'csr', 'jane']), /Approved,Issued/);
    const cert = join(server.dataDir, 'jane.crt');
    await writeFile(cert, Buffer.from(issued.status.certificate!, 'base64'));
    const text = await run('openssl', ['x509', '-in', cert, '-noout', '-subject', '-issuer', '-ext', 'extendedKeyUsage']);
    assert.match(text.stdout, /subject=CN ?= ?jane, O ?= ?developers|subject=O ?= ?developers, CN ?= ?jane/);
    assert.match(text.stdout, /TLS Web Client Authentication/);

    await k.ok(['create', 'namespace', 'dev']);
    await k.ok(['create', 'rolebinding', 'jane-view', '--clusterrole=view', '--user=jane', '-n', 'dev']);
    const jane = (args: string[]) =>
      run(k.bin, ['--kubeconfig=/dev/null', `--server=https://127.0.0.1:${server.port}`, `--certificate-authority=${ca}`, `--client-certificate=${cert}`, `--client-key=${key}`, ...args]);
    const list = await jane(['get', 'pods', '-n', 'dev']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stderr, /No resources found in dev namespace/);
    const whoami = await jane(['auth', 'whoami']);
    assert.match(whoami.stdout, /Username\s+jane/);
    assert.match(whoami.stdout, /Groups\s+\[developers system:authenticated\]/);
    const create = await jane(['create', 'configmap', 'x', '-n', 'dev']);
    assert.match(create.stderr, /error: failed to create configmap: configmaps is forbidden: User "jane" cannot create resource "configmaps" in API group "" in the namespace "dev"/);
    const other = await jane(['get', 'pods', '-n', 'default']);
    assert.match(other.stderr, /pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"/);
  });

  it('refuses system:masters client certificates, bad requests, and fails disallowed usages', async () => {
    const masters = await opensslRequest(server.dataDir, 'root', '/CN=root/O=system:masters');
    const refused = await k.fails(['create', '-f', '-'], { input: csrManifest('root', masters.request, 'kubernetes.io/kube-apiserver-client', ['client auth']) });
    assert.match(refused, /certificatesigningrequests.certificates.k8s.io "root" is forbidden: use of kubernetes.io\/kube-apiserver-client signer with system:masters group is not allowed/);

    const garbage = await k.fails(['create', '-f', '-'], { input: csrManifest('garbage', Buffer.from('not a csr').toString('base64'), 'example.com/x', ['client auth']) });
    assert.match(garbage, /spec.request: Invalid value: .*PEM block type must be CERTIFICATE REQUEST/);
    const noSigner = await k.fails(['create', '-f', '-'], { input: csrManifest('nosigner', masters.request, 'nosigner', ['bogus']) });
    assert.match(noSigner, /spec.signerName: Invalid value: "nosigner": must be a fully qualified domain and path of the form 'example.com\/signer-name'/);
    assert.match(noSigner, /spec.usages\[0\]: Unsupported value: "bogus"/);

    const server2 = await opensslRequest(server.dataDir, 'srv', '/CN=srv');
    await k.ok(['create', '-f', '-'], { input: csrManifest('srv', server2.request, 'kubernetes.io/kube-apiserver-client', ['server auth']) });
    await k.ok(['certificate', 'approve', 'srv']);
    const failed = await waitFor('the Failed condition', async () => {
      const csr = await k.json<{ status: { conditions: { type: string; reason?: string; message?: string }[] } }>(['get', 'csr', 'srv']);
      return csr.status.conditions.find((c) => c.type === 'Failed');
    });
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.equal(failed.message, 'invalid usage for client certificate: server auth');
    assert.match(await k.ok(['get', 'csr', 'srv']), /Approved,Failed/);

    await k.ok(['create', '-f', '-'], { input: csrManifest('nope', (await opensslRequest(server.dataDir, 'nope', '/CN=nope')).request, 'kubernetes.io/kube-apiserver-client', ['client auth']) });
    assert.match(await k.ok(['certificate', 'deny', 'nope']), /certificatesigningrequest.certificates.k8s.io\/nope denied/);
    assert.match(await k.ok(['get', 'csr', 'nope']), /\bDenied\b/);
    // a decision cannot be reversed
    const flip = await k.fails(['certificate', 'approve', 'nope']);
    assert.match(flip, /certificate signing request "nope" is already Denied/);
  });

  it('skiff token create gives a bootstrap token whose node CSR is auto-approved and signed', async () => {
    const created = await run(process.execPath, [SKIFF, 'token', 'create', '--kubeconfig', server.kubeconfig, '--print-join-command']);
    assert.equal(created.code, 0, created.stderr);
    const m = /skiff kubelet --server (\S+) --token ([a-z0-9]{6})\.([a-z0-9]{16}) --ca-cert-hash sha256:[0-9a-f]{64}/.exec(created.stdout);
    assert.ok(m, created.stdout);
    const token = `${m[2]}.${m[3]}`;
    const listed = await run(process.execPath, [SKIFF, 'token', 'list', '--kubeconfig', server.kubeconfig]);
    assert.match(listed.stdout, new RegExp(`${token}\\s+\\S+Z\\s+authentication,signing\\s+<none>\\s+system:bootstrappers:kubeadm:default-node-token`));

    const whoami = await withToken(token, ['auth', 'whoami', '-o', 'json']);
    assert.equal(whoami.code, 0, whoami.stderr);
    const info = JSON.parse(whoami.stdout) as { status: { userInfo: { username: string; groups: string[] } } };
    assert.equal(info.status.userInfo.username, `system:bootstrap:${m[2]}`);
    assert.deepEqual(info.status.userInfo.groups, ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated']);
    assert.match((await withToken(token, ['get', 'pods'])).stderr, /User "system:bootstrap:[a-z0-9]{6}" cannot list resource "pods"/);

    const node = await opensslRequest(server.dataDir, 'node', '/O=system:nodes/CN=system:node:worker-1');
    const create = await run(k.bin, ['--kubeconfig=/dev/null', `--server=https://127.0.0.1:${server.port}`, `--certificate-authority=${ca}`, `--token=${token}`, 'create', '-f', '-'], {
      input: csrManifest('node-csr-worker-1', node.request, 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']),
    });
    assert.equal(create.code, 0, create.stderr);
    const signed = await waitFor('the node certificate', async () => {
      const csr = await k.json<{ spec: { username: string }; status: { certificate?: string; conditions?: { type: string; reason: string; message: string }[] } }>(['get', 'csr', 'node-csr-worker-1']);
      return csr.status.certificate ? csr : undefined;
    });
    assert.equal(signed.spec.username, `system:bootstrap:${m[2]}`);
    assert.deepEqual(signed.status.conditions?.map((c) => [c.type, c.reason, c.message]), [['Approved', 'AutoApproved', 'Auto approving kubelet client certificate after SubjectAccessReview.']]);

    // deleting the token ends it
    assert.match((await run(process.execPath, [SKIFF, 'token', 'delete', m[2], '--kubeconfig', server.kubeconfig])).stdout, new RegExp(`bootstrap token "${m[2]}" deleted`));
    assert.match((await withToken(token, ['auth', 'whoami'])).stderr, /Unauthorized/);
  });
});
