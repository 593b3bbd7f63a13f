import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readlinkSync } from 'node:fs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SKIFF = join(ROOT, 'bin/skiff.js');

/** The kubectl on PATH and its versioned siblings (kubectl.1.27 … kubectl.1.33). */
export function kubectlBinary(version?: string): string {
  if (!version) return 'kubectl';
  const real = readlinkSync('/usr/bin/kubectl', { encoding: 'utf8' });
  return join(dirname(resolve('/usr/bin', real)), `kubectl.${version}`);
}

export interface ServerProcess {
  dataDir: string;
  kubeconfig: string;
  port: number;
  proc: ChildProcess;
  /** Everything the process wrote to stderr (its structured log). */
  logs(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `args` with `netpol` added to its `--disable` list (or a `--disable netpol` of its own). */
function disableNetpol(args: readonly string[]): string[] {
  const out = [...args];
  const i = out.findIndex((a) => a === '--disable' || a.startsWith('--disable='));
  if (i < 0) return [...out, '--disable', 'netpol'];
  if (out[i] === '--disable') out[i + 1] = `${out[i + 1]},netpol`;
  else out[i] = `${out[i]},netpol`;
  return out;
}

/** Starts `skiff <command>` and resolves once it prints its KUBECONFIG line. */
export async function startServer(opts: { command?: string; dataDir?: string; args?: string[]; timeoutMs?: number; wrap?: string[]; /** node's own flags (e.g. --cpu-prof) */ nodeArgs?: string[] } = {}): Promise<ServerProcess> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'skiff-e2e-')));
  const command = opts.command ?? 'server';
  // these scenarios run host commands as pods: the process runtime, even where containerd is installed (containers-*.test.ts use containerd)
  const runtime = (command === 'server' || command === 'kubelet') && !(opts.args ?? []).includes('--container-runtime') ? ['--container-runtime', 'process'] : [];
  // nor do they touch the host's iptables: the userspace proxy, unless a test asks for a mode (and then runs in its own network namespace)
  const proxyMode = command === 'server' && !(opts.args ?? []).includes('--proxy-mode') ? ['--proxy-mode', 'userspace'] : [];
  // … nor enforce network policies there: the netpol component is left out with them
  const extra = proxyMode.length > 0 ? disableNetpol(opts.args ?? []) : (opts.args ?? []);
  const args = [...(opts.nodeArgs ?? []), SKIFF, command, '--data-dir', dataDir, '--bind-address', '127.0.0.1', '--port', '0', ...runtime, ...proxyMode, ...extra];
  // `wrap` runs the server under another command (e.g. in a network namespace of its own), which must exec it
  const proc = opts.wrap ? spawn(opts.wrap[0], [...opts.wrap.slice(1), process.execPath, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' } }) : spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' } });
  let stderr = '';
  let stdout = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const ready = await new Promise<{ port: number; kubeconfig: string }>((resolvePromise, reject) => {
    // a server that does not start in time is killed: left running, it would keep the test runner alive
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not start in time:\n${stderr}`));
    }, opts.timeoutMs ?? 90_000);
    proc.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const port = /serving on port (\d+)/.exec(stdout);
      const kc = /export KUBECONFIG=(\S+)/.exec(stdout);
      if (port && kc) {
        clearTimeout(timer);
        resolvePromise({ port: Number(port[1]), kubeconfig: kc[1] });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${stderr}`));
    });
  });
  return {
    dataDir,
    ...ready,
    proc,
    logs: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      // a server that does not stop in time is killed, so a hung shutdown cannot hang the suite
      const timer = setTimeout(() => {
        process.stderr.write(`skiff did not exit within 20 s of ${signal}; killing it. Its log:\n${stderr.slice(-4000)}\n`);
        proc.kill('SIGKILL');
      }, 20_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, optionally feeding stdin. */
export function run(cmd: string, args: string[], opts: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const p = spawn(cmd, args, { env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    p.stdin.on('error', () => undefined); // a command that exits without reading its input is not an error here
    p.stdin.end(opts.input ?? '');
  });
}

/** A kubectl bound to one kubeconfig; `ok` throws with the output when the command fails. */
export function kubectlFor(kubeconfig: string, version?: string, prefix: string[] = []) {
  const bin = kubectlBinary(version);
  // `prefix` runs kubectl under another command (e.g. nsenter into the server's network namespace)
  const exec = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
    prefix.length > 0 ? run(prefix[0], [...prefix.slice(1), bin, '--kubeconfig', kubeconfig, ...args], opts) : run(bin, ['--kubeconfig', kubeconfig, ...args], opts);
  return {
    bin,
    exec,
    async ok(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Promise<string> {
      const r = await exec(args, opts);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}):\n${r.stderr}${r.stdout}`);
      return r.stdout;
    },
    async fails(args: string[], opts: { input?: string } = {}): Promise<string> {
      const r = await exec(args, opts);
      if (r.code === 0) throw new Error(`kubectl ${args.join(' ')} unexpectedly succeeded:\n${r.stdout}`);
      return r.stderr + r.stdout;
    },
    async json<T = Record<string, unknown>>(args: string[]): Promise<T> {
      const r = await exec([...args, '-o', 'json']);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}):\n${r.stderr}`);
      return JSON.parse(r.stdout) as T;
    },
  };
}

/** Polls `check` until it returns a truthy value or the deadline passes. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Waits until a node has registered (the kubelet of `skiff server`) and returns its name. */
export async function firstNodeName(k: ReturnType<typeof kubectlFor>): Promise<string> {
  const nodes = await waitFor('the node to register', async () => {
    const list = await k.json<{ items: { metadata: { name: string } }[] }>(['get', 'nodes']);
    return list.items.length > 0 ? list.items : undefined;
  });
  return nodes[0].metadata.name;
}
