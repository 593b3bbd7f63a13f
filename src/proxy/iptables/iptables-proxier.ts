import { realClock, type Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import type { EndpointsMap, ProxyMode } from '../proxy-mode.js';
import type { ServicePort } from '../service-port.js';
import { usableEndpoints } from '../usable-endpoints.js';
import { isServiceChain } from './chain-names.js';
import type { Conntrack } from './conntrack.js';
import { setSysctl, type Iptables, type Jump } from '../../base/iptables-runner.js';
import {
  buildRules,
  KUBE_EXTERNAL_SERVICES,
  KUBE_FIREWALL,
  KUBE_FORWARD,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
  renderRestore,
  type LocalDetector,
} from './iptables-rules.js';
import { staleUdpFlows, type ProgrammedPort } from './stale-flows.js';

/** The jumps from built-in chains into kube-proxy's, as upstream installs them. */
export const JUMPS: readonly Jump[] = [
  { table: 'filter', from: 'INPUT', to: KUBE_EXTERNAL_SERVICES, comment: 'kubernetes externally-visible service portals', extra: ['-m', 'conntrack', '--ctstate', 'NEW'] },
  { table: 'filter', from: 'FORWARD', to: KUBE_EXTERNAL_SERVICES, comment: 'kubernetes externally-visible service portals', extra: ['-m', 'conntrack', '--ctstate', 'NEW'] },
  { table: 'filter', from: 'INPUT', to: KUBE_NODEPORTS, comment: 'kubernetes health check service ports' },
  { table: 'filter', from: 'FORWARD', to: KUBE_SERVICES, comment: 'kubernetes service portals', extra: ['-m', 'conntrack', '--ctstate', 'NEW'] },
  { table: 'filter', from: 'OUTPUT', to: KUBE_SERVICES, comment: 'kubernetes service portals', extra: ['-m', 'conntrack', '--ctstate', 'NEW'] },
  { table: 'filter', from: 'FORWARD', to: KUBE_FORWARD, comment: 'kubernetes forwarding rules' },
  { table: 'filter', from: 'INPUT', to: KUBE_PROXY_FIREWALL, comment: 'kubernetes load balancer firewall', extra: ['-m', 'conntrack', '--ctstate', 'NEW'] },
  { table: 'filter', from: 'OUTPUT', to: KUBE_PROXY_FIREWALL, comment: 'kubernetes load balancer firewall', extra: ['-m', 'conntrack', '--ctstate', 'NEW'] },
  { table: 'filter', from: 'FORWARD', to: KUBE_PROXY_FIREWALL, comment: 'kubernetes load balancer firewall', extra: ['-m', 'conntrack', '--ctstate', 'NEW'] },
  { table: 'filter', from: 'INPUT', to: KUBE_FIREWALL },
  { table: 'filter', from: 'OUTPUT', to: KUBE_FIREWALL },
  { table: 'nat', from: 'OUTPUT', to: KUBE_SERVICES, comment: 'kubernetes service portals' },
  { table: 'nat', from: 'PREROUTING', to: KUBE_SERVICES, comment: 'kubernetes service portals' },
  { table: 'nat', from: 'POSTROUTING', to: KUBE_POSTROUTING, comment: 'kubernetes postrouting rules' },
];

const FIXED_FILTER = [KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL, KUBE_FIREWALL];
const FIXED_NAT = [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ];

export interface IptablesProxierOptions {
  iptables: Iptables;
  /** Clears stale UDP flows; without it they age out on their own. */
  conntrack?: Conntrack;
  /** This node, for Local traffic policies. */
  nodeName: string;
  /** Which traffic comes from pods (for masquerading off-cluster traffic to cluster IPs). */
  localDetector?: LocalDetector;
  masqueradeAll?: boolean;
  /** Node ports answer on these addresses only; every local address when absent. */
  nodePortAddresses?: readonly string[];
  /** Node ports on 127.0.0.1 too (sets route_localnet), as upstream's default. */
  localhostNodePorts?: boolean;
  /** A full sync at least this often; syncs in between rewrite only the services that changed. */
  fullSyncPeriodMs?: number;
  logger: Logger;
  clock?: Clock;
}

/** The fingerprint of everything a service port's chains are built from. */
function fingerprint(sp: ServicePort, endpoints: EndpointsMap): string {
  const eps = [...(endpoints.get(sp.key) ?? [])].sort((a, b) => (`${a.ip}:${a.port}` < `${b.ip}:${b.port}` ? -1 : 1));
  return JSON.stringify([sp, eps]);
}

/**
 * The iptables mode (upstream's default): rules from `buildRules`, applied
 * atomically with iptables-restore --noflush. The first sync, every sync
 * after a failure, and one per fullSyncPeriod rewrite everything (and put
 * the jumps from the built-in chains back); the others rewrite only the
 * chains of service ports that changed. Chains no longer used are deleted,
 * stale UDP flows are cleared from conntrack, and stop() removes it all.
 */
export class IptablesProxier implements ProxyMode {
  readonly name = 'iptables';
  private readonly clock: Clock;
  private needFullSync = true;
  private lastFullSync = -Infinity;
  private prepared = false;
  private randomFully = false;
  private activeChains = new Set<string>();
  private fingerprints = new Map<string, string>();
  private programmed = new Map<string, ProgrammedPort>();

  constructor(private readonly o: IptablesProxierOptions) {
    this.clock = o.clock ?? realClock;
  }

  async sync(services: readonly ServicePort[], endpoints: EndpointsMap): Promise<void> {
    const now = this.clock.monotonic();
    const full = this.needFullSync || now - this.lastFullSync >= (this.o.fullSyncPeriodMs ?? 30_000);
    this.needFullSync = true;
    if (!this.prepared) await this.prepare();
    if (full) for (const jump of JUMPS) await this.o.iptables.ensureJump(jump);

    const fingerprints = new Map(services.map((sp) => [sp.key, fingerprint(sp, endpoints)]));
    const unchanged = full ? undefined : new Set([...fingerprints].filter(([k, f]) => this.fingerprints.get(k) === f).map(([k]) => k));
    const rules = buildRules({
      services,
      endpoints,
      nodeName: this.o.nodeName,
      localDetector: this.o.localDetector,
      masqueradeAll: this.o.masqueradeAll,
      nodePortAddresses: this.o.nodePortAddresses,
      localhostNodePorts: this.o.localhostNodePorts ?? true,
      randomFully: this.randomFully,
      unchanged,
    });
    const candidates = new Set(this.activeChains);
    if (full) for (const c of await this.o.iptables.chains('nat')) candidates.add(c);
    const stale = [...candidates].filter((c) => isServiceChain(c) && !rules.activeNatChains.has(c));
    await this.o.iptables.restore(renderRestore(rules, stale));

    this.needFullSync = false;
    if (full) this.lastFullSync = now;
    this.activeChains = rules.activeNatChains;
    this.fingerprints = fingerprints;
    const programmed = new Map<string, ProgrammedPort>();
    for (const sp of services) {
      const usable = usableEndpoints(endpoints.get(sp.key) ?? []);
      programmed.set(sp.key, { service: sp, endpointIPs: new Set(usable.map((e) => e.ip)) });
    }
    const flows = staleUdpFlows(this.programmed, programmed);
    this.programmed = programmed;
    if (this.o.conntrack) {
      for (const f of flows) {
        try {
          await this.o.conntrack.deleteUdp(f);
        } catch (err) {
          this.o.logger.warn('cannot clear stale UDP flows', { filter: f, error: err });
        }
      }
    }
  }

  async stop(): Promise<void> {
    for (const jump of JUMPS) await this.o.iptables.deleteJump(jump);
    let nat: string[] = [...this.activeChains];
    try {
      nat = (await this.o.iptables.chains('nat')).filter(isServiceChain);
    } catch (err) {
      this.o.logger.warn('cannot list nat chains; removing the known ones', { error: err });
    }
    const filterChains = FIXED_FILTER;
    const natChains = [...FIXED_NAT, ...nat];
    const text = [
      '*filter', ...filterChains.map((c) => `:${c} - [0:0]`), ...filterChains.map((c) => `-X ${c}`), 'COMMIT',
      '*nat', ...natChains.map((c) => `:${c} - [0:0]`), ...natChains.map((c) => `-X ${c}`), 'COMMIT', '',
    ].join('\n');
    try {
      await this.o.iptables.restore(text);
    } catch (err) {
      this.o.logger.warn('cannot remove the proxy rules', { error: err });
    }
    this.activeChains.clear();
    this.fingerprints.clear();
    this.programmed.clear();
    this.needFullSync = true;
  }

  /** Once: the sysctls upstream sets, and the iptables features this host has. */
  private async prepare(): Promise<void> {
    this.prepared = true;
    this.randomFully = await this.o.iptables.hasRandomFully().catch(() => false);
    if ((this.o.localhostNodePorts ?? true) && !(await setSysctl('net/ipv4/conf/all/route_localnet', '1'))) {
      this.o.logger.warn('cannot set net.ipv4.conf.all.route_localnet: node ports on 127.0.0.1 will not reach pods');
    }
    // bridged pod-to-pod replies of service traffic must pass through conntrack to be un-NATed
    if (!(await setSysctl('net/bridge/bridge-nf-call-iptables', '1'))) {
      this.o.logger.info('cannot set net.bridge.bridge-nf-call-iptables (br_netfilter not loaded?)');
    }
  }
}
