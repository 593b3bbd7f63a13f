import { RESOURCES } from '../../api/resources.js';
import type { ApiRegistry } from '../api-registry.js';
import { tableConvertorFor } from '../tables/index.js';
import { RegistryStore } from './registry-store.js';
import { strategyFor, type StrategyDeps } from './strategies/index.js';
import type { Clock } from '../../base/clock.js';
import { ConvertingStorage } from '../apiextensions/converting-storage.js';
import { convertHpa } from './hpa-conversion.js';

/**
 * Puts every built-in resource (the `RESOURCES` table) into the registry,
 * through the same `add` a custom resource uses.
 */
export function registerBuiltinResources(registry: ApiRegistry, deps: StrategyDeps & { clock?: Clock }): void {
  for (const info of RESOURCES) {
    // events.k8s.io/v1 Events are kept apart from core/v1 Events (no conversion between the two yet)
    const keyRoot = info.group === 'events.k8s.io' ? `/registry/${info.group}/${info.resource}/` : undefined;
    const strategy = strategyFor(info, deps);
    // autoscaling/v1 HPAs are the autoscaling/v2 objects, converted (upstream stores v2)
    const storage = info.group === 'autoscaling' && info.version === 'v1' ? new ConvertingStorage(deps.storage, convertHpa, 'v1', 'v2') : deps.storage;
    registry.add(new RegistryStore({ info, storage, strategy, keyRoot, clock: deps.clock, table: tableConvertorFor(info) }));
  }
}
