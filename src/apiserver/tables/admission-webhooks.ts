import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './columns.js';
import { column, convertor } from './table-convertor.js';

/** Upstream's printers for both webhook configuration kinds: name, number of webhooks, age. */
export const webhookConfigurationTable = convertor<MutatingWebhookConfiguration | ValidatingWebhookConfiguration>(
  [NAME_COLUMN, column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks in this configuration'), AGE_COLUMN],
  (c, now) => [c.metadata?.name ?? '', (c.webhooks ?? []).length, translateTimestampSince(c.metadata?.creationTimestamp, now)],
);
