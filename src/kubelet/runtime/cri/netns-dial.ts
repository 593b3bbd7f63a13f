import { spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import { RuntimeError } from '../runtime.js';

/**
 * Runs inside the pod's network namespace: connects to localhost:<port>,
 * says so on stderr, then relays stdin/stdout to the connection (each side's
 * end half-closes the other).
 */
const RELAY = `
const net = require('node:net');
const port = Number(process.argv[1]);
const s = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true });
s.on('error', (e) => { process.stderr.write('error ' + e.message + '\\n'); process.exit(1); });
s.on('connect', () => {
  process.stderr.write('connected\\n');
  process.stdin.pipe(s);
  s.pipe(process.stdout);
});
s.on('close', () => process.exit(0));
`;

/**
 * A TCP connection to `127.0.0.1:<port>` inside the network namespace of
 * process `pid` (the pod sandbox's), as CRI PortForward reaches it: a small
 * relay started under `nsenter --net`, so ports a pod binds to its own
 * loopback are reachable too, not only those on the pod IP.
 */
export function dialInNetns(pid: number, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const child = spawn('nsenter', [`--net=/proc/${pid}/ns/net`, '--', process.execPath, '-e', RELAY, String(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let said = '';
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new RuntimeError('NotFound', `failed to connect to localhost:${port} inside the pod's network namespace: ${why}`));
    };
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code) => fail(said.replace(/^error /, '').trim() || `relay exited with ${code}`));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      said += d;
      if (settled || !said.includes('connected\n')) return;
      settled = true;
      const conn = Duplex.from({ readable: child.stdout, writable: child.stdin });
      conn.on('error', () => undefined);
      const kill = () => child.kill('SIGKILL');
      conn.once('close', kill);
      const destroy = conn.destroy.bind(conn);
      conn.destroy = (err?: Error) => {
        kill();
        return destroy(err);
      };
      resolve(conn);
    });
  });
}
