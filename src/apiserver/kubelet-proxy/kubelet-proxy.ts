import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { ApiError, badRequest, internalError, serviceUnavailable } from '../../machinery/api-error.js';
import type { ApiRegistry } from '../api-registry.js';
import {
  kubeletLogQuery,
  kubeletPortForwardQuery,
  kubeletStreamQuery,
  parsePodLogOptions,
  parsePodStreamOptions,
  parsePortForwardPorts,
  validatePodLogOptions,
} from '../../machinery/query/pod-options.js';
import { containerFor, locateKubelet } from './locate-kubelet.js';

/** The API server's client identity towards kubelets. */
export interface KubeletClientTls {
  certPem: string;
  keyPem: string;
}

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
    const opts = parsePodLogOptions(query);
    validatePodLogOptions(opts, name);
    const target = await locateKubelet(this.registry, namespace, name);
    const container = containerFor(target.pod, opts.container ?? null);
    const q = kubeletLogQuery(opts);
    const path = `/containerLogs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(container)}${q.size ? `?${q}` : ''}`;
    await new Promise<void>((resolve, reject) => {
      const req = https.request(
        { host: target.host, port: target.port, path, method: 'GET', cert: this.clientTls.certPem, key: this.clientTls.keyPem, rejectUnauthorized: false, signal },
        (upstream) => {
          const code = upstream.statusCode ?? 502;
          if (code < 200 || code > 206) return void kubeletRefusal(upstream, name).then(reject, reject);
          res.writeHead(code, { 'Content-Type': upstream.headers['content-type'] ?? 'text/plain', 'Transfer-Encoding': 'chunked' });
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
    const url = new URL(req.url ?? '/', 'https://apiserver');
    // the options are read as the API server reads them, then sent on in the kubelet's own form
    const isPortForward = subresource === 'portforward';
    const streamOpts = isPortForward ? undefined : parsePodStreamOptions(url.searchParams);
    const query = streamOpts ? kubeletStreamQuery(streamOpts, subresource === 'exec') : kubeletPortForwardQuery(parsePortForwardPorts(url.searchParams));
    const target = await locateKubelet(this.registry, namespace, name);
    const kubeletPath = KUBELET_PATHS[subresource];
    const container = streamOpts ? `/${encodeURIComponent(containerFor(target.pod, streamOpts.container ?? null))}` : '';
    const path = `/${kubeletPath}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}${container}${query.size ? `?${query}` : ''}`;
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

/**
 * A kubelet's refusal of a log request as a Status, as upstream's
 * GenericHttpResponseChecker words it: 400 is a BadRequest carrying the
 * kubelet's text (`previous terminated container "c" in pod "p" not found`),
 * 500 an internal error, anything else a generic server response.
 */
async function kubeletRefusal(upstream: IncomingMessage, name: string): Promise<ApiError> {
  let body = '';
  upstream.setEncoding('utf8');
  for await (const chunk of upstream) {
    body += chunk as string;
    if (body.length > 4096) break;
  }
  upstream.destroy();
  const text = body.trim();
  const code = upstream.statusCode ?? 502;
  if (code === 400) return badRequest(text);
  if (code === 500) return internalError(text);
  const causes = text ? [{ reason: 'UnexpectedServerResponse', message: text }] : undefined;
  if (code === 404) return new ApiError(404, 'NotFound', `the server could not find the requested resource ( pods/log ${name})`, { name, kind: 'pods/log', causes });
  return new ApiError(code, 'Unknown', `the server responded with the status code ${code} but did not return more information ( pods/log ${name})`, { name, kind: 'pods/log', causes });
}

/** Writes an error on a raw socket that asked to upgrade (there is no response object). */
export function rejectUpgrade(socket: Duplex, err: ApiError): void {
  const body = JSON.stringify(err.toStatus());
  socket.end(`HTTP/1.1 ${err.code} ${err.reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
