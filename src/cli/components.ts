import type { ComponentCommand } from './command.js';
import { command as agent } from './commands/agent.js';
import { command as controllerManager } from './commands/controller-manager.js';
import { command as dashboard } from './commands/dashboard.js';
import { command as dns } from './commands/dns.js';
import { command as images } from './commands/images.js';
import { command as kubelet } from './commands/kubelet.js';
import { command as netpol } from './commands/netpol.js';
import { command as podnet } from './commands/podnet.js';
import { command as proxy } from './commands/proxy.js';
import { command as scheduler } from './commands/scheduler.js';
import { command as simulate } from './commands/simulate.js';
import { command as token } from './commands/token.js';
import { command as storage } from './commands/storage.js';
import { command as trace } from './commands/trace.js';

/**
 * Every `skiff <name>` component command, in help order. `skiff server` runs
 * those with a `serverOrder`, lowest first. Add a command here to ship it.
 */
export const COMPONENTS: readonly ComponentCommand[] = [agent, controllerManager, dashboard, dns, images, kubelet, netpol, podnet, proxy, scheduler, simulate, storage, token, trace];
