import { firstMissing, missingCommand, skipUnless } from '../../../src/testing/requirements.js';
import { run } from '../harness.js';
import { missingContainerd } from './containerd-node.js';

/** What a node running real containers inside a network namespace of its own needs (as root). */
export const netnsNodeRequirements = skipUnless(firstMissing(
  missingContainerd(),
  missingCommand('iptables', ['--version'], 'apt install iptables'),
  missingCommand('unshare', ['--version'], 'apt install util-linux'),
  missingCommand('nsenter', ['--version'], 'apt install util-linux'),
));

/**
 * A command prefix that runs the rest in a new network namespace with
 * loopback and one address besides it (`hostIp`/24 on a veth pair, the
 * default route), so nothing the node does reaches the machine's network.
 */
export function netnsWrap(hostIp: string): string[] {
  return ['unshare', '--net', '--', 'sh', '-c', [
    'ip link set lo up',
    'ip link add skiff-h0 type veth peer name skiff-h1',
    `ip addr add ${hostIp}/24 dev skiff-h0`,
    'ip link set skiff-h0 up && ip link set skiff-h1 up',
    'ip route add default dev skiff-h0',
    'exec "$@"',
  ].join(' && '), 'netns-host'];
}

/** PID 1 in a container has no default SIGTERM action: exit on it, so pods stop at once rather than after the grace period. */
export const STOP_ON_TERM = 'trap "exit 0" TERM;';

/** The parts of a Pod these tests read. */
export interface PodJson { metadata: { name: string }; spec: { nodeName?: string }; status: { phase: string; podIP?: string } }

/** Runs a command in a network namespace (a process's `/proc/<pid>/ns/net`, or a named one's `/run/netns/<name>`): "on that host". */
export function inNetns(netnsPath: string) {
  return (cmd: string, args: string[], timeoutMs = 15_000) => run('nsenter', [`--net=${netnsPath}`, '--', cmd, ...args], { timeoutMs });
}

/** One HTTP/1.0 GET with busybox nc from wherever `prefix` runs it (the static busybox's wget crashes in getaddrinfo): the body, or undefined. */
export function httpGetScript(host: string, port: number, path = '/index.html', timeoutSeconds = 3): string {
  return `printf 'GET ${path} HTTP/1.0\\r\\n\\r\\n' | busybox nc -w ${timeoutSeconds} ${host} ${port}`;
}

/** The body of an HTTP response nc printed, trimmed. */
export function httpBody(out: string): string | undefined {
  return out.split('\r\n\r\n')[1]?.trim() || undefined;
}

/**
 * Several "hosts" on one machine: named network namespaces (`/run/netns/<prefix>-<host>`,
 * made by and only for the test) whose `eth0`s are veths on one bridge in the first
 * host's namespace, all in `subnet`.0/24, each host's default route through the first.
 * `remove()` deletes the namespaces and with them every link and rule inside.
 */
export class NetnsLan {
  readonly names: string[];

  constructor(readonly prefix: string, readonly hosts: readonly { name: string; ip: string }[]) {
    this.names = hosts.map((h) => `${prefix}-${h.name}`);
  }

  path(host: string): string {
    return `/run/netns/${this.prefix}-${host}`;
  }

  async create(): Promise<void> {
    const ip = async (...args: string[]) => {
      const r = await run('ip', args);
      if (r.code !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr}`);
    };
    const [hub, ...rest] = this.hosts;
    const hubNs = `${this.prefix}-${hub.name}`;
    for (const n of this.names) {
      await ip('netns', 'add', n);
      await ip('-n', n, 'link', 'set', 'lo', 'up');
    }
    await ip('-n', hubNs, 'link', 'add', 'lan0', 'type', 'bridge');
    await ip('-n', hubNs, 'addr', 'add', `${hub.ip}/24`, 'dev', 'lan0');
    await ip('-n', hubNs, 'link', 'set', 'lan0', 'up');
    for (const [i, h] of rest.entries()) {
      const ns = `${this.prefix}-${h.name}`;
      const port = `lan${i + 1}`;
      await ip('link', 'add', 'eth0', 'netns', ns, 'type', 'veth', 'peer', 'name', port, 'netns', hubNs);
      await ip('-n', hubNs, 'link', 'set', port, 'master', 'lan0', 'up');
      await ip('-n', ns, 'addr', 'add', `${h.ip}/24`, 'dev', 'eth0');
      await ip('-n', ns, 'link', 'set', 'eth0', 'up');
      await ip('-n', ns, 'route', 'add', 'default', 'via', hub.ip);
    }
  }

  async remove(): Promise<void> {
    for (const n of this.names) await run('ip', ['netns', 'del', n]);
  }
}
