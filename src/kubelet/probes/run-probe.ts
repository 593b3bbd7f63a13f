import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Container, Probe } from 'kubernetes-types/core/v1.js';

export type ProbeResult = { ok: boolean; message?: string };

export interface ProbeTarget {
  /** Where the pod listens (its IP, or the host's for pods without one). */
  host: string;
  container: Container;
  exec(argv: string[], timeoutMs: number): Promise<{ exitCode: number; stdout: string; stderr: string }>;
}

/** A named port (`http`) resolves through the container's ports. */
export function resolvePort(port: number | string | undefined, container: Container): number | undefined {
  if (typeof port === 'number') return port;
  if (port === undefined) return undefined;
  if (/^\d+$/.test(port)) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** Runs one probe attempt; any handler error or timeout is a failure, never a throw. */
export async function runProbe(probe: Probe, target: ProbeTarget): Promise<ProbeResult> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  try {
    if (probe.exec) {
      const r = await target.exec([...(probe.exec.command ?? [])], timeoutMs);
      return r.exitCode === 0 ? { ok: true } : { ok: false, message: `command exited ${r.exitCode}: ${(r.stdout + r.stderr).trim().slice(0, 200)}` };
    }
    if (probe.httpGet) {
      const port = resolvePort(probe.httpGet.port, target.container);
      if (!port) return { ok: false, message: `unknown port ${String(probe.httpGet.port)}` };
      return await httpProbe(probe.httpGet.scheme === 'HTTPS' ? 'https' : 'http', probe.httpGet.host || target.host, port, probe.httpGet.path ?? '/', probe.httpGet.httpHeaders ?? [], timeoutMs);
    }
    if (probe.tcpSocket) {
      const port = resolvePort(probe.tcpSocket.port, target.container);
      if (!port) return { ok: false, message: `unknown port ${String(probe.tcpSocket.port)}` };
      return await tcpProbe(probe.tcpSocket.host || target.host, port, timeoutMs);
    }
    return { ok: false, message: 'probe has no handler' };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

function httpProbe(scheme: 'http' | 'https', host: string, port: number, path: string, headers: readonly { name: string; value: string }[], timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const mod = scheme === 'https' ? https : http;
    const req = mod.request({
      host, port, path, method: 'GET', timeout: timeoutMs, rejectUnauthorized: false,
      headers: { 'User-Agent': 'kube-probe/1.32', Accept: '*/*', ...Object.fromEntries(headers.map((h) => [h.name, h.value])) },
    }, (res) => {
      res.resume();
      const code = res.statusCode ?? 0;
      resolve(code >= 200 && code < 400 ? { ok: true } : { ok: false, message: `HTTP probe failed with statuscode: ${code}` });
    });
    req.on('timeout', () => req.destroy(new Error(`Get "${scheme}://${host}:${port}${path}": context deadline exceeded`)));
    req.on('error', (err) => resolve({ ok: false, message: err.message }));
    req.end();
  });
}

function tcpProbe(host: string, port: number, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ ok: false, message: `dial tcp ${host}:${port}: i/o timeout` });
    }, timeoutMs);
    sock.once('connect', () => {
      clearTimeout(timer);
      sock.destroy();
      resolve({ ok: true });
    });
    sock.once('error', (err) => {
      clearTimeout(timer);
      resolve({ ok: false, message: err.message });
    });
  });
}
