import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { kubectlFor, removeDir, run, startServer, waitFor, type ServerProcess } from './harness.js';

let server: ServerProcess;
let kubectl: ReturnType<typeof kubectlFor>;
let nodeName: string;
let httpPort: number;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function httpGet(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/', timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

const pod = (name: string, command: string[], extra = '') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  nodeName: ${nodeName}\n  containers:\n  - name: main\n    image: busybox\n    command: ${JSON.stringify(command)}\n    workingDir: /tmp\n    env: [{name: GREETING, value: hi-from-env}]\n${extra}`;

before(async () => {
  server = await startServer({ command: 'server' });
  kubectl = kubectlFor(server.kubeconfig);
  nodeName = await waitFor('the node to register', async () => (await kubectl.ok(['get', 'nodes', '-o', 'name'])).trim().split('\n')[0]?.replace('node/', ''));
  httpPort = await freePort();
  const serve = `require('http').createServer((q, s) => s.end('hello through port-forward')).listen(${httpPort}, '127.0.0.1')`;
  await kubectl.ok(['apply', '-f', '-'], {
    input: [pod('shell', ['sh', '-c', 'sleep 3600']), pod('web', [process.execPath, '-e', serve]), pod('ticker', ['sh', '-c', 'i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.2; done'])].join('---\n'),
  });
  await waitFor('pods to run', async () => {
    const list = await kubectl.json<{ items: { status: { phase?: string } }[] }>(['get', 'pods']);
    return list.items.length === 3 && list.items.every((p) => p.status.phase === 'Running');
  });
});

after(async () => {
  await server?.stop();
  if (server) await removeDir(server.dataDir);
});

test('kubectl exec: stdout, stderr, environment, working directory and the exit code', async () => {
  const r = await kubectl.exec(['exec', 'shell', '--', 'sh', '-c', 'echo out $GREETING $(pwd); echo err >&2; exit 3']);
  assert.equal(r.code, 3);
  assert.equal(r.stdout, 'out hi-from-env /tmp\n');
  assert.match(r.stderr, /^err\n/);
  assert.match(r.stderr, /command terminated with exit code 3/);
  assert.equal(await kubectl.ok(['exec', 'shell', '-c', 'main', '--', 'echo', 'ok']), 'ok\n');
  assert.match(await kubectl.fails(['exec', 'shell', '-c', 'nope', '--', 'true']), /nope is not valid/);
});

test('kubectl exec -i pipes stdin and half-closes it (v5 close signal)', async () => {
  const r = await kubectl.exec(['exec', '-i', 'shell', '--', 'sh', '-c', 'cat; echo done'], { input: 'line one\nline two\n' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'line one\nline two\ndone\n');
});

test('kubectl exec -it runs under a pty with the terminal size', async () => {
  // kubectl wants a terminal of its own for -t: script gives it one
  const cmd = `stty cols 101 rows 31; ${kubectl.bin} --kubeconfig ${server.kubeconfig} exec -it shell -- sh -c 'tty; stty size; exit 4'`;
  const r = await run('script', ['-q', '-e', '-c', cmd, '/dev/null'], { timeoutMs: 20_000 });
  assert.equal(r.code, 4, r.stdout + r.stderr);
  assert.match(r.stdout, /\/dev\/pts\/\d+/);
  assert.match(r.stdout, /31 101/);
});

test('kubectl 1.27 falls back to SPDY for exec and port-forward', async () => {
  const old = kubectlFor(server.kubeconfig, '1.27');
  const r = await old.exec(['exec', '-i', 'shell', '--', 'sh', '-c', 'cat; exit 2'], { input: 'spdy stdin\n' });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, 'spdy stdin\n');
  await portForward(old.bin);
});

test('kubectl attach streams a running container', async () => {
  const r = await run(kubectl.bin, ['--kubeconfig', server.kubeconfig, 'attach', 'ticker'], { timeoutMs: 2500 });
  // attach runs until interrupted; what matters is the live output it printed
  assert.match(r.stdout, /tick \d+\ntick \d+\n/);
});

test('kubectl run -i attaches stdin to a new pod', async () => {
  const r = await kubectl.exec(['run', 'reader', '-i', '--restart=Never', '--image=busybox', '--', 'sh', '-c', 'read x; echo got $x'], { input: 'hello\n' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /got hello/);
});

test('kubectl port-forward (SPDY tunnelled in a WebSocket) reaches a port in the pod', async () => {
  await portForward(kubectl.bin);
});

async function portForward(bin: string): Promise<void> {
  const pf = spawn(bin, ['--kubeconfig', server.kubeconfig, 'port-forward', 'pod/web', `:${httpPort}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  pf.stdout.on('data', (d: Buffer) => (out += d.toString()));
  pf.stderr.on('data', (d: Buffer) => (out += d.toString()));
  try {
    const local = await waitFor('port-forward to listen', () => Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1]) || undefined, 15_000);
    assert.equal(await httpGet(local), 'hello through port-forward');
    // a second connection over the same session
    assert.equal(await httpGet(local), 'hello through port-forward');
    assert.doesNotMatch(out, /error/i);
  } finally {
    pf.kill('SIGINT');
  }
}
