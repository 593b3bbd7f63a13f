import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, run, startServer, waitFor, type ServerProcess } from './harness.js';

interface AuditEvent {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username?: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestObject?: { data?: Record<string, string> };
  responseObject?: { metadata?: { uid?: string } };
  annotations?: Record<string, string>;
}

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  # a user whose requests are never recorded
  - level: None
    users: ["quiet-bot"]
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets"]
  - level: RequestResponse
    namespaces: ["team"]
    resources:
      - group: ""
        resources: ["configmaps"]
  - level: Metadata
`;

describe('audit log: --audit-policy-file and --audit-log-path with rotation', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  let dir: string;
  let logPath: string;
  let asQuiet: (args: string[]) => ReturnType<typeof run>;

  async function events(): Promise<AuditEvent[]> {
    const text = await readFile(logPath, 'utf8').catch(() => '');
    return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEvent);
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skiff-audit-e2e-'));
    logPath = join(dir, 'logs', 'audit.log');
    await writeFile(join(dir, 'policy.yaml'), POLICY);
    await writeFile(join(dir, 'tokens.csv'), 'quiet-secret-token,quiet-bot,2001\n');
    server = await startServer({
      command: 'apiserver',
      args: ['--audit-policy-file', join(dir, 'policy.yaml'), '--audit-log-path', logPath, '--audit-log-maxsize', '1', '--audit-log-maxbackup', '1', '--token-auth-file', join(dir, 'tokens.csv')],
    });
    k = kubectlFor(server.kubeconfig);
    const ca = join(server.dataDir, 'pki', 'ca.crt');
    asQuiet = (args) => run(k.bin, ['--kubeconfig=/dev/null', `--server=https://127.0.0.1:${server.port}`, `--certificate-authority=${ca}`, '--token=quiet-secret-token', ...args]);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
    if (dir) await removeDir(dir);
  });

  it('records every kubectl request at the level its rule gives', async () => {
    await k.ok(['create', 'namespace', 'team']);
    await k.ok(['create', 'secret', 'generic', 'db', '--from-literal=password=hunter2', '-n', 'team']);
    await k.ok(['create', 'configmap', 'settings', '--from-literal=color=blue', '-n', 'team']);
    await k.ok(['get', 'configmaps', '-n', 'team']);
    const quiet = await asQuiet(['get', 'pods', '-n', 'team']);
    assert.match(quiet.stderr, /Forbidden/);

    const log = await waitFor('the configmap list to be logged', async () => {
      const all = await events();
      return all.some((e) => e.verb === 'list' && e.objectRef?.resource === 'configmaps' && e.stage === 'ResponseComplete') && all;
    });
    for (const e of log) {
      assert.equal(e.kind, 'Event');
      assert.equal(e.apiVersion, 'audit.k8s.io/v1');
      assert.ok(e.auditID);
    }
    // every request gets RequestReceived and ResponseComplete, under one audit ID
    const byId = new Map<string, string[]>();
    for (const e of log) byId.set(e.auditID, [...(byId.get(e.auditID) ?? []), e.stage]);
    for (const [id, stages] of byId) assert.deepEqual(stages, ['RequestReceived', 'ResponseComplete'], `stages of ${id}`);

    const complete = (pred: (e: AuditEvent) => boolean) => log.filter((e) => e.stage === 'ResponseComplete' && pred(e));
    const [ns] = complete((e) => e.verb === 'create' && e.objectRef?.resource === 'namespaces');
    assert.equal(ns.level, 'Metadata');
    assert.equal(ns.objectRef?.name, 'team');
    assert.equal(ns.responseStatus?.code, 201);

    const [secret] = complete((e) => e.verb === 'create' && e.objectRef?.resource === 'secrets');
    assert.equal(secret.level, 'Metadata');
    assert.equal(secret.objectRef?.name, 'db');
    assert.equal(secret.requestObject, undefined);
    assert.equal(secret.responseObject, undefined);
    assert.doesNotMatch(await readFile(logPath, 'utf8'), /hunter2|aHVudGVyMg/, 'no secret data in the log');

    const [cm] = complete((e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps');
    assert.equal(cm.level, 'RequestResponse');
    assert.deepEqual(cm.requestObject?.data, { color: 'blue' });
    assert.ok(cm.responseObject?.metadata?.uid);
    assert.equal(cm.annotations?.['authorization.k8s.io/decision'], 'allow');
    assert.equal(cm.user.username, 'skiff-admin');

    // the quiet user's refused list is not there at all
    assert.equal(log.filter((e) => e.user.username === 'quiet-bot').length, 0);
    assert.equal(log.filter((e) => e.objectRef?.resource === 'pods').length, 0);
  });

  it('rotates the log at --audit-log-maxsize and keeps --audit-log-maxbackup old files', async () => {
    const file = join(dir, 'payload.txt');
    await writeFile(file, 'x'.repeat(300 * 1024));
    // each create is logged with its request and response: about 600 KB, so the 1 MB log rotates every other one
    for (let i = 1; i <= 6; i++) await k.ok(['create', 'configmap', `big-${i}`, `--from-file=data=${file}`, '-n', 'team']);
    await waitFor('the last big configmap to be logged', async () =>
      (await events()).some((e) => e.stage === 'ResponseComplete' && e.objectRef?.name === 'big-6'),
    );
    const files = (await readdir(join(dir, 'logs'))).sort();
    assert.equal(files.length, 2, `the log and one backup: ${files.join(', ')}`);
    assert.match(files[0], /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
    assert.equal(files[1], 'audit.log');
    for (const f of files) {
      const path = join(dir, 'logs', f);
      assert.ok((await stat(path)).size <= 1024 * 1024, `${f} is within 1 MB`);
      // whole lines only: every line of every file parses
      for (const line of (await readFile(path, 'utf8')).split('\n').filter(Boolean)) assert.equal((JSON.parse(line) as AuditEvent).kind, 'Event');
    }
    assert.equal((await stat(logPath)).mode & 0o777, 0o600);
  });

  it('refuses to start with a corrupt policy file, saying why', async () => {
    await writeFile(join(dir, 'bad.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Loud\n');
    await assert.rejects(
      startServer({ command: 'apiserver', dataDir: join(dir, 'bad-data'), args: ['--audit-policy-file', join(dir, 'bad.yaml'), '--audit-log-path', join(dir, 'x.log')] }),
      /--audit-policy-file: invalid audit policy .*rules\[0\]\.level: Unsupported value: "Loud"/,
    );
  });
});
