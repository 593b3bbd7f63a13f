import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './columns.js';
import { column, convertor } from './table-convertor.js';

/** Upstream's columns for FlowSchemas: MissingPL is "True" when the referenced level does not exist (the Dangling condition). */
export const flowSchemaTable = convertor<FlowSchema>(
  [
    NAME_COLUMN,
    column('PriorityLevel', 'string', 'The name of the priority level used by this FlowSchema'),
    column('MatchingPrecedence', 'string', 'The matching precedence of this FlowSchema'),
    column('DistinguisherMethod', 'string', 'The distinguisher method of this FlowSchema'),
    AGE_COLUMN,
    column('MissingPL', 'string', "Whether this FlowSchema's priority level is missing"),
  ],
  (fs, now) => {
    const dangling = fs.status?.conditions?.find((c) => c.type === 'Dangling')?.status;
    return [
      fs.metadata?.name ?? '',
      fs.spec?.priorityLevelConfiguration?.name ?? '',
      String(fs.spec?.matchingPrecedence ?? 1000),
      fs.spec?.distinguisherMethod?.type ?? '<none>',
      translateTimestampSince(fs.metadata?.creationTimestamp, now),
      dangling ?? '?',
    ];
  },
);

export const priorityLevelConfigurationTable = convertor<PriorityLevelConfiguration>(
  [
    NAME_COLUMN,
    column('Type', 'string', 'The type of the priority level'),
    column('NominalConcurrencyShares', 'string', 'The nominal concurrency shares of the priority level'),
    column('Queues', 'string', 'The number of queues of the priority level'),
    column('HandSize', 'string', 'The hand size of the priority level'),
    column('QueueLengthLimit', 'string', 'The queue length limit of the priority level'),
    AGE_COLUMN,
  ],
  (pl, now) => {
    const limited = pl.spec?.limited;
    const queuing = limited?.limitResponse?.queuing;
    return [
      pl.metadata?.name ?? '',
      pl.spec?.type ?? '',
      limited ? String(limited.nominalConcurrencyShares ?? 30) : '<none>',
      queuing ? String(queuing.queues ?? 64) : '<none>',
      queuing ? String(queuing.handSize ?? 8) : '<none>',
      queuing ? String(queuing.queueLengthLimit ?? 50) : '<none>',
      translateTimestampSince(pl.metadata?.creationTimestamp, now),
    ];
  },
);
