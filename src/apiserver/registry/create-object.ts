import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/object.js';
import { apiVersionOf } from '../../api/resource-info.js';
import { applyDefaults } from '../../api/defaults/index.js';
import { alreadyExists } from '../../machinery/api-error.js';
import { setManagedFields, updateManagedFields } from '../../machinery/managedfields/index.js';
import { formatTime } from '../../machinery/time.js';
import { decodeWritten, encodeObject } from './codec.js';
import { tracedCommit, tracedStage } from '../trace/request-trace.js';
import { throwIfInvalid, type StoreContext, type WriteParams } from './store-context.js';

const GENERATE_NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * Creates the object (already in its namespace) with full metadata
 * semantics: mutating admission, defaults, generated name, uid, creation
 * time, generation, managedFields, validation, validating admission, then
 * the write. A generated name that is taken is drawn again.
 */
export async function createObject(ctx: StoreContext, obj: KubeObject, params: WriteParams): Promise<KubeObject> {
  await params.admission?.mutate('CREATE', obj, undefined);
  const now = new Date(ctx.clock.now());
  applyDefaults(obj, ctx.info);
  const meta = (obj.metadata ??= {});
  const generated = !meta.name && Boolean(meta.generateName);
  if (generated) meta.name = `${meta.generateName}${randomSuffix(5)}`;
  meta.uid = randomUUID();
  meta.creationTimestamp = formatTime(now);
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  delete meta.selfLink;
  if (ctx.strategy.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  ctx.strategy.prepareForCreate(obj, { now });
  if (params.fieldManager !== undefined) {
    setManagedFields(obj, updateManagedFields({ new: obj, manager: params.fieldManager, apiVersion: apiVersionOf(ctx.info), time: now, schema: ctx.listSchema }));
  }
  tracedStage(params.trace, 'validation', 'validation', () => throwIfInvalid(ctx, obj, ctx.strategy.validate(obj)));
  await params.admission?.validate('CREATE', obj, undefined);
  // a generated name that is taken is drawn again (the suffix alphabet keeps it valid)
  for (let attempt = 0; ; attempt++) {
    const name = meta.name ?? '';
    const key = ctx.key(meta.namespace ?? '', name);
    const retry = () => {
      if (!generated || attempt >= 7) throw alreadyExists(ctx.groupResource, name);
      meta.name = `${meta.generateName}${randomSuffix(5)}`;
    };
    // allocations (cluster IPs, node ports) are only made for a free name, and a dry run writes nothing
    if ((params.dryRun || ctx.strategy.beforeCreate) && (await ctx.storage.get(key)).kv) {
      retry();
      continue;
    }
    await ctx.strategy.beforeCreate?.(obj, params.dryRun);
    if (params.dryRun) return obj;
    const value = encodeObject(obj);
    const res = await tracedCommit(params.trace, 'create', key, () => ctx.storage.create(key, value));
    if (res.succeeded) return decodeWritten(res.kv);
    await ctx.strategy.afterDelete?.(obj);
    retry();
  }
}

function randomSuffix(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += GENERATE_NAME_CHARS[Math.floor(Math.random() * GENERATE_NAME_CHARS.length)];
  return s;
}
