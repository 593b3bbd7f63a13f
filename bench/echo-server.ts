import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The platform's limit for the apiserver bench: a bare Node HTTPS server
 * with the API server's own TLS setup (its serving certificate and key, client
 * certificates requested) that only parses each request's JSON body and
 * answers it re-serialized with 201 — no routing, storage, validation,
 * admission or watch. Run as its own process, as `skiff apiserver` is, so the
 * bench's client and the server do not share a thread.
 */
export interface EchoServer {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the echo server on loopback with the certificate of the API server whose data dir is given. */
export async function startEchoServer(apiserverDataDir: string): Promise<EchoServer> {
  const proc: ChildProcess = spawn(process.execPath, [...process.execArgv.filter((a) => a !== '--expose-gc'), fileURLToPath(import.meta.url), join(apiserverDataDir, 'pki')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`echo server exited (${code}) before listening`)));
  });
  return {
    port,
    pid: proc.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

function serve(pkiDir: string): void {
  const pem = (f: string) => readFileSync(join(pkiDir, f));
  const server = https.createServer({ ca: pem('ca.crt'), cert: pem('apiserver.crt'), key: pem('apiserver.key'), requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: string;
      try {
        body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString()));
      } catch {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
  });
  process.once('SIGTERM', () => process.exit(0));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serve(process.argv[2]);
