import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import type { KubeObject } from '../../api/object.js';
import { ApiError } from '../../machinery/api-error.js';
import type { Logger } from '../../machinery/logger.js';
import { CompactedError } from '../../storage/errors.js';
import type { ApiRegistry } from '../api-registry.js';
import { decodeObject } from '../registry/codec.js';
import type { RegistryStore } from '../registry/registry-store.js';
import { deepEqual } from '../registry/deep-equal.js';
import { AUTO_UPDATE_ANNOTATION, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from './bootstrap-configuration.js';
import type { PriorityAndFairness } from './priority-and-fairness.js';

const GROUP = 'flowcontrol.apiserver.k8s.io';
type BootstrapObject = FlowSchema | PriorityLevelConfiguration;

const MANDATORY = new Set([...MANDATORY_FLOW_SCHEMAS, ...MANDATORY_PRIORITY_LEVELS].map((o) => o.metadata!.name!));

export interface FlowControlConfigOptions {
  registry: ApiRegistry;
  apf: PriorityAndFairness;
  logger: Logger;
  signal: AbortSignal;
}

/**
 * Keeps APF's configuration in step with the stored FlowSchemas and
 * PriorityLevelConfigurations (one watch each), after making sure upstream's
 * bootstrap objects exist (upstream's configuration ensurer): missing ones
 * are created, and one whose `apf.kubernetes.io/autoupdate-spec` annotation
 * is "true" gets the shipped spec back. A deleted mandatory object is
 * recreated.
 */
export async function runFlowControlConfig(opts: FlowControlConfigOptions): Promise<void> {
  const schemas = opts.registry.lookup(GROUP, 'v1', 'flowschemas');
  const levels = opts.registry.lookup(GROUP, 'v1', 'prioritylevelconfigurations');
  if (!schemas || !levels) throw new Error('flowcontrol.apiserver.k8s.io/v1 is not served');
  const current = { schemas: new Map<string, KubeObject>(), levels: new Map<string, KubeObject>() };
  const apply = () => opts.apf.configure([...current.schemas.values()] as FlowSchema[], [...current.levels.values()] as PriorityLevelConfiguration[]);
  await ensureBootstrap(levels, [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS], opts).catch((err: unknown) => opts.logger.warn('APF bootstrap failed', { error: String(err) }));
  await ensureBootstrap(schemas, [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS], opts).catch((err: unknown) => opts.logger.warn('APF bootstrap failed', { error: String(err) }));
  const onMandatoryDeleted = (store: RegistryStore, objects: readonly BootstrapObject[]) => {
    ensureBootstrap(store, objects, opts).catch((err: unknown) => opts.logger.warn('APF bootstrap failed', { error: String(err) }));
  };
  await Promise.all([
    follow(schemas, current.schemas, apply, opts, () => onMandatoryDeleted(schemas, MANDATORY_FLOW_SCHEMAS)),
    follow(levels, current.levels, apply, opts, () => onMandatoryDeleted(levels, MANDATORY_PRIORITY_LEVELS)),
  ]);
}

async function ensureBootstrap(store: RegistryStore, objects: readonly BootstrapObject[], opts: FlowControlConfigOptions): Promise<void> {
  for (const wanted of objects) {
    if (opts.signal.aborted) return;
    const name = wanted.metadata!.name!;
    try {
      await store.create(structuredClone(wanted) as unknown as KubeObject, { dryRun: false });
      continue;
    } catch (err) {
      if (!ApiError.is(err, 'AlreadyExists')) throw err;
    }
    await store.guaranteedUpdate(
      '',
      name,
      (cur) => {
        if (!cur || cur.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION] !== 'true' || deepEqual(cur.spec, wanted.spec)) return cur ?? (structuredClone(wanted) as unknown as KubeObject);
        opts.logger.info('APF bootstrap object restored', { resource: store.info.resource, name });
        return { ...cur, spec: structuredClone(wanted.spec) } as KubeObject;
      },
      { dryRun: false },
    );
  }
}

/** List, then watch, keeping `into` current and calling `changed` after each change; relists after a compaction. */
async function follow(store: RegistryStore, into: Map<string, KubeObject>, changed: () => void, opts: FlowControlConfigOptions, onMandatoryDeleted: () => void): Promise<void> {
  while (!opts.signal.aborted) {
    try {
      const list = await store.list('', {});
      into.clear();
      for (const item of list.items) into.set(item.metadata!.name!, item);
      changed();
      const from = Number(list.metadata.resourceVersion) + 1;
      for await (const ev of store.backing.watch(store.prefix(''), { startRevision: from, signal: opts.signal })) {
        if (ev.type === 'DELETE') {
          const old = decodeObject(ev.prevKv ?? ev.kv);
          into.delete(old.metadata!.name!);
          if (MANDATORY.has(old.metadata!.name!)) onMandatoryDeleted();
        } else {
          const obj = decodeObject(ev.kv);
          into.set(obj.metadata!.name!, obj);
        }
        changed();
      }
    } catch (err) {
      if (opts.signal.aborted) return;
      if (!(err instanceof CompactedError)) opts.logger.warn('APF configuration watch failed; relisting', { resource: store.info.resource, error: String(err) });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
