import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../../machinery/logger.js';
import { firstMissing, missingCommand, missingRoot, skipUnless } from '../../testing/requirements.js';
import { podNetworkConflist, POD_NETWORK_NAME } from './cni-config.js';
import { cniDel } from './cni-del.js';
import { hostLocalAllocations, PodIPGC, type HostLocalAllocation } from './pod-ip-gc.js';

const logger = createLogger('test', {}, () => undefined);
const HOUR_AGO = (Date.now() - 3600_000) / 1000;

/** host-local's files: an address file per pod (`<id>\r\n<ifname>`, or the id alone from old versions), its lock and its cursor. */
function networkDir(files: Record<string, string>, old = true): string {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-ipam-'));
  const net = join(dir, POD_NETWORK_NAME);
  mkdirSync(net);
  writeFileSync(join(net, 'lock'), '');
  writeFileSync(join(net, 'last_reserved_ip.0'), '10.42.0.9');
  for (const [ip, content] of Object.entries(files)) {
    writeFileSync(join(net, ip), content);
    if (old) utimesSync(join(net, ip), HOUR_AGO, HOUR_AGO);
  }
  return net;
}

test('host-local allocations are read from its address files, in both formats', () => {
  const net = networkDir({ '10.42.0.2': 'aaa\r\neth0', '10.42.0.3': 'bbb' });
  const found = hostLocalAllocations(net).sort((a, b) => a.ip.localeCompare(b.ip));
  assert.deepEqual(found.map(({ ip, containerId, ifName }) => ({ ip, containerId, ifName })), [
    { ip: '10.42.0.2', containerId: 'aaa', ifName: 'eth0' },
    { ip: '10.42.0.3', containerId: 'bbb', ifName: undefined },
  ]);
  assert.ok(found.every((a) => a.reservedAt < Date.now() - 3000_000));
  assert.deepEqual(hostLocalAllocations(join(net, 'missing')), []);
  rmSync(join(net, '..'), { recursive: true, force: true });
});

test('only addresses of sandboxes the runtime does not know, reserved before the cut-off, are released; a failure does not stop the rest', async () => {
  const net = networkDir({ '10.42.0.2': 'live\r\neth0', '10.42.0.3': 'leaked\r\neth0', '10.42.0.4': 'broken\r\neth0', '10.42.0.5': 'also-leaked\r\neth0' });
  // reserved just now: a sandbox whose creation is in flight (the runtime lists it only once created)
  writeFileSync(join(net, '10.42.0.6'), 'creating\r\neth0');
  const tried: string[] = [];
  const gc = new PodIPGC({
    networkDir: net, logger, minAgeMs: 0,
    knownSandboxes: async () => new Set(['live']),
    creatingSince: () => Date.now() - 60_000,
    release: async (a: HostLocalAllocation) => {
      tried.push(a.containerId);
      if (a.containerId === 'broken') throw new Error('plugin failed');
      rmSync(join(net, a.ip));
    },
  });
  const released = await gc.releaseLeaked();
  assert.deepEqual(released.map((a) => a.ip).sort(), ['10.42.0.3', '10.42.0.5']);
  assert.deepEqual(tried.sort(), ['also-leaked', 'broken', 'leaked']);
  assert.deepEqual(readdirSync(net).sort(), ['10.42.0.2', '10.42.0.4', '10.42.0.6', 'last_reserved_ip.0', 'lock']);
  // with no creation in flight the young allocation still waits out the minimum age
  const young = new PodIPGC({ networkDir: net, logger, knownSandboxes: async () => new Set(['live']), creatingSince: () => undefined, release: async (a) => void tried.push(`again ${a.containerId}`) });
  await young.releaseLeaked();
  assert.deepEqual(tried.filter((t) => t.startsWith('again')), ['again broken']);
  rmSync(join(net, '..'), { recursive: true, force: true });
});

test('CNI DEL through the bridge plugin releases the host-local address of a sandbox whose network namespace is gone', skipUnless(firstMissing(missingRoot(), missingCommand('/usr/lib/cni/bridge', [], 'containernetworking-plugins'))), async () => {
  const net = networkDir({ '10.42.0.7': 'orphan\r\neth0', '10.42.0.8': 'kept\r\neth0' });
  const conf = join(net, '..', '10-skiff.conflist');
  writeFileSync(conf, podNetworkConflist({ podCIDR: '10.42.0.0/24', bridge: 'skiffgc0', ipamDataDir: join(net, '..') }));
  await cniDel({ conflistPath: conf, binDir: '/usr/lib/cni', containerId: 'orphan', ifName: 'eth0' });
  assert.equal(existsSync(join(net, '10.42.0.7')), false);
  assert.equal(existsSync(join(net, '10.42.0.8')), true);
  // DEL is idempotent
  await cniDel({ conflistPath: conf, binDir: '/usr/lib/cni', containerId: 'orphan', ifName: 'eth0' });
  rmSync(join(net, '..'), { recursive: true, force: true });
});
