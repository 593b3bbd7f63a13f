import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podNetworkConflist } from '../cni/cni-config.js';
import { containerdConfig } from './containerd-config.js';

test('the containerd config keeps everything under its own directory and uses the host cgroup driver', () => {
  const text = containerdConfig({
    dir: '/data/containerd', sandboxImage: 'skiff.local/pause:1', cniBinDir: '/usr/lib/cni', cniConfDir: '/data/cni',
    cgroupDriver: 'systemd', registryConfigDir: '/data/containerd/certs.d', restrictOomScoreAdj: true,
  });
  assert.match(text, /^root = "\/data\/containerd\/root"$/m);
  assert.match(text, /^state = "\/data\/containerd\/state"$/m);
  assert.match(text, /^ {2}address = "\/data\/containerd\/containerd.sock"$/m);
  assert.match(text, /sandbox_image = "skiff.local\/pause:1"/);
  assert.match(text, /SystemdCgroup = true/);
  assert.match(text, /restrict_oom_score_adj = true/);
  assert.match(text, /conf_dir = "\/data\/cni"/);
  assert.match(text, /stream_server_address = "127.0.0.1"/);
  assert.match(text, /netns_mounts_under_state_dir = true/);
  assert.doesNotMatch(containerdConfig({ dir: '/d', sandboxImage: 'p', cniBinDir: 'b', cniConfDir: 'c', cgroupDriver: 'cgroupfs', registryConfigDir: 'r' }), /SystemdCgroup = true/);
});

test('the pod network is a bridge over the node pod CIDR with portmap; masquerade is left to one node-level rule', () => {
  const conf = JSON.parse(podNetworkConflist({ podCIDR: '10.42.3.0/24' }));
  assert.deepEqual(conf.plugins.map((p: { type: string }) => p.type), ['bridge', 'portmap']);
  assert.equal(conf.plugins[0].isGateway, true);
  assert.equal(conf.plugins[0].ipMasq, false);
  assert.deepEqual(conf.plugins[0].ipam.ranges, [[{ subnet: '10.42.3.0/24' }]]);
});
