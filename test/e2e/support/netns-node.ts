import { firstMissing, missingCommand, skipUnless } from '../../../src/testing/requirements.js';
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
