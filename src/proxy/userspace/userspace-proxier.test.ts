import { createLogger } from '../../machinery/logger.js';
import { proxyModeConformance } from '../proxy-mode-conformance.js';
import type { ServiceAddresses } from '../service-addresses.js';
import { UserspaceProxier } from './userspace-proxier.js';

/** Loopback addresses are local already; nothing else can be made so in a unit test. */
const loopbackOnly: ServiceAddresses = {
  add: (ip) => Promise.resolve(ip.startsWith('127.')),
  remove: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

proxyModeConformance('userspace', () => new UserspaceProxier({ addresses: loopbackOnly, nodeName: 'n1', nodePortAddress: '127.0.0.1', logger: createLogger('proxy-test', {}, () => undefined) }));
