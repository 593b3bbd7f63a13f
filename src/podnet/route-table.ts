import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { PodRoute } from './host-routes.js';

const exec = promisify(execFile);

/** The routing protocol number skiff's routes carry (`ip route … proto 151`), so it finds and removes only its own. */
export const ROUTE_PROTOCOL = '151';

/** An `ip route` command failed. */
export class RouteError extends Error {
  override readonly name = 'RouteError';
  constructor(readonly args: readonly string[], readonly stderr: string) {
    super(`ip ${args.join(' ')}: ${stderr.trim()}`);
  }
}

/** The node's main routing table, as far as skiff's routes go (small, so tests can record it). */
export interface RouteTable {
  /** The routes skiff installed. */
  list(): Promise<PodRoute[]>;
  /** Adds the route, or changes its gateway. */
  replace(route: PodRoute): Promise<void>;
  remove(route: PodRoute): Promise<void>;
}

/** Parses `ip -4 route show proto 151` output: `10.42.1.0/24 via 192.168.0.12 dev eth0 …`. */
export function parseRoutes(text: string): PodRoute[] {
  const out: PodRoute[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\S+)\s.*\bvia\s+(\S+)/.exec(line.trim());
    if (m) out.push({ dst: m[1]!.includes('/') ? m[1]! : `${m[1]}/32`, via: m[2]! });
  }
  return out;
}

async function ip(args: string[]): Promise<string> {
  try {
    return (await exec('ip', args)).stdout;
  } catch (err) {
    throw new RouteError(args, (err as { stderr?: string }).stderr ?? String(err));
  }
}

/** The host's routes through iproute2. */
export class ExecRouteTable implements RouteTable {
  async list(): Promise<PodRoute[]> {
    return parseRoutes(await ip(['-4', 'route', 'show', 'proto', ROUTE_PROTOCOL]));
  }

  async replace(r: PodRoute): Promise<void> {
    await ip(['route', 'replace', r.dst, 'via', r.via, 'proto', ROUTE_PROTOCOL]);
  }

  async remove(r: PodRoute): Promise<void> {
    await ip(['route', 'del', r.dst, 'via', r.via, 'proto', ROUTE_PROTOCOL]);
  }
}
