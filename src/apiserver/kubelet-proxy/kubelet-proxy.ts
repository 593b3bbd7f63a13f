import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { ApiError, serviceUnavailable } from '../../machinery/api-error.js';
import type { ApiRegistry } from '../api-registry.js';
import { containerFor, locateKubelet } from './locate-kubelet.js';

/** The API server's client identity towards kubelets. */
export interface KubeletClientTls {
  certPem: string;
  keyPem: string;
}

const LOG_PARAMS = ['follow', 'previous', 'sinceSeconds', 'sinceTime', 'timestamps', 'tailLines', 'limitBytes', 'insecureSkipTLSVerifyBackend'];
const KUBELET_PATHS: Record<string, string> = { exec: 'exec', attach: 'attach', portforward: 'portForward' };

/**
 * The one place the API server calls a kubelet (upstream: logs, exec,
 * attach, port-forward). Kubelet serving certificates are not verified, as
 * upstream without --kubelet-certificate-authority.
 */
export class KubeletProxy {
  constructor(
    private readonly registry: ApiRegistry,
    private readonly clientTls: KubeletClientTls,
  ) {}

  /** GET pods/{name}/log: streams the kubelet's /containerLogs answer through. */
  async log(namespace: string, name: string, query: URLSearchParams, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const target = await locateKubelet(this.registry, namespace, name);
    const container = containerFor(target.pod, query.get('container'));
    const q = new URLSearchParams();
    for (const p of LOG_PARAMS) if (query.has(p)) q.set(p, query.get(p)!);
    const path = `/containerLogs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(container)}${q.size ? `?${q}` : ''}`;
    await new Promise<void>((resolve, reject) => {
      const req = https.request(
        { host: target.host, port: target.port, path, method: 'GET', cert: this.clientTls.certPem, key: this.clientTls.keyPem, rejectUnauthorized: false, signal },
        (upstream) => {
          res.writeHead(upstream.statusCode ?? 502, { 'Content-Type': upstream.headers['content-type'] ?? 'text/plain', 'Transfer-Encoding': 'chunked' });
          upstream.pipe(res);
          upstream.on('end', resolve);
          upstream.on('error', resolve);
        },
      );
      req.on('error', (err) => (signal.aborted ? resolve() : reject(serviceUnavailable(`error dialing the kubelet at ${target.host}:${target.port}: ${err.message}`))));
      req.end();
    });
  }

  /**
   * pods/exec, attach, portforward: the client asked to upgrade (WebSocket or
   * SPDY); replay the request to the kubelet and splice the two connections.
   */
  async upgrade(namespace: string, name: string, subresource: string, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const target = await locateKubelet(this.registry, namespace, name);
    const url = new URL(req.url ?? '/', 'https://apiserver');
    const kubeletPath = KUBELET_PATHS[subresource];
    const container = subresource === 'portforward' ? '' : `/${encodeURIComponent(containerFor(target.pod, url.searchParams.get('container')))}`;
    const path = `/${kubeletPath}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}${container}${url.search}`;
    const upstream = tls.connect({ host: target.host, port: target.port, cert: this.clientTls.certPem, key: this.clientTls.keyPem, rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => {
      upstream.once('secureConnect', () => resolve());
      upstream.once('error', (err) => reject(serviceUnavailable(`error dialing the kubelet at ${target.host}:${target.port}: ${err.message}`)));
    });
    const lines = [`${req.method ?? 'GET'} ${path} HTTP/1.1`, `Host: ${target.host}:${target.port}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const k = req.rawHeaders[i];
      if (!['host', 'authorization'].includes(k.toLowerCase())) lines.push(`${k}: ${req.rawHeaders[i + 1]}`);
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) upstream.write(head);
    socket.pipe(upstream).pipe(socket);
    const close = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', close);
    upstream.on('error', close);
    socket.on('close', close);
    upstream.on('close', close);
  }
}

/** Writes an error on a raw socket that asked to upgrade (there is no response object). */
export function rejectUpgrade(socket: Duplex, err: ApiError): void {
  const body = JSON.stringify(err.toStatus());
  socket.end(`HTTP/1.1 ${err.code} ${err.reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
