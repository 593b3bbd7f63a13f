import { randomUUID } from 'node:crypto';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { WebhookClientConfig } from 'kubernetes-types/admissionregistration/v1.js';
import type { KubeObject } from '../../api/object.js';
import { internalError } from '../../machinery/api-error.js';
import type { ApiRegistry } from '../api-registry.js';
import { resolveClientConfig } from '../outbound/client-config.js';
import { postJson } from '../outbound/https-json-client.js';

/** Converts objects of one CRD to a version; objects already there are returned as they are. */
export type CrdConvert = (objects: readonly KubeObject[], toVersion: string) => Promise<KubeObject[]>;

/** Upstream's conversion webhook deadline. */
const WEBHOOK_TIMEOUT_SECONDS = 30;

/**
 * The conversion of a CRD's objects between its versions, as upstream's
 * converters: `None` rewrites apiVersion only; `Webhook` sends a
 * ConversionReview (apiextensions.k8s.io/v1) with the objects that need it
 * and checks the answer (uid, result, count, kind, apiVersion, and that
 * only labels and annotations of metadata changed). Failures are 500s
 * naming the CRD's kind, in upstream's words.
 */
export function crdConverter(crd: CustomResourceDefinition, registry: ApiRegistry): CrdConvert {
  const group = crd.spec.group;
  const kind = crd.spec.names.kind;
  const conversion = crd.spec.conversion;
  return async (objects, toVersion) => {
    const desired = `${group}/${toVersion}`;
    const pending = objects.map((o, i) => [o, i] as const).filter(([o]) => o.apiVersion !== desired);
    if (pending.length === 0) return [...objects];
    const out = [...objects];
    if (conversion?.strategy !== 'Webhook') {
      for (const [o, i] of pending) out[i] = { ...o, apiVersion: desired };
      return out;
    }
    const gvk = `${pending[0][0].apiVersion ?? ''}, Kind=${kind}`;
    const versions = conversion.webhook?.conversionReviewVersions ?? [];
    if (!versions.includes('v1')) throw internalError(`conversion webhook for ${gvk} failed: no supported conversionReviewVersions: ${JSON.stringify(versions)}`);
    const uid = randomUUID();
    const review = { kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1', request: { uid, desiredAPIVersion: desired, objects: pending.map(([o]) => o) } };
    let body: unknown;
    try {
      const target = await resolveClientConfig(registry, conversion.webhook!.clientConfig as WebhookClientConfig, WEBHOOK_TIMEOUT_SECONDS);
      body = await postJson(target, review, WEBHOOK_TIMEOUT_SECONDS * 1000);
    } catch (err) {
      throw internalError(`conversion webhook for ${gvk} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    let converted: KubeObject[];
    try {
      converted = convertedObjects(uid, body);
    } catch (err) {
      throw internalError(`conversion webhook for ${gvk} returned invalid response: ${(err as Error).message}`);
    }
    if (converted.length !== pending.length) throw internalError(`conversion webhook for ${gvk} returned ${converted.length} objects, expected ${pending.length}`);
    converted.forEach((c, j) => {
      const [original, i] = pending[j];
      const problem = checkConverted(original, c, desired);
      if (problem) throw internalError(`conversion webhook for ${gvk} returned invalid converted object at index ${j}: ${problem}`);
      // metadata is the server's: only labels and annotations come from the webhook
      out[i] = { ...c, metadata: { ...original.metadata, labels: c.metadata?.labels, annotations: c.metadata?.annotations } };
      if (out[i].metadata!.labels === undefined) delete out[i].metadata!.labels;
      if (out[i].metadata!.annotations === undefined) delete out[i].metadata!.annotations;
    });
    return out;
  };
}

function convertedObjects(uid: string, body: unknown): KubeObject[] {
  const review = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (review.apiVersion !== 'apiextensions.k8s.io/v1' || review.kind !== 'ConversionReview') {
    throw new Error(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${String(review.apiVersion ?? '')}, Kind=${String(review.kind ?? '')}`);
  }
  const response = review.response as { uid?: string; result?: { status?: string; message?: string }; convertedObjects?: KubeObject[] } | undefined;
  if (!response) throw new Error('no response provided');
  if (response.uid !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`);
  if (response.result?.status !== 'Success') {
    if (response.result?.message) throw new Error(response.result.message);
    throw new Error(`response.result.status was '${response.result?.status ?? ''}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

function checkConverted(original: KubeObject, converted: KubeObject, desired: string): string | undefined {
  if (converted?.kind !== original.kind) return `expected kind ${original.kind}, got ${String(converted?.kind)}`;
  if (converted.apiVersion !== desired) return `expected apiVersion ${desired}, got ${String(converted.apiVersion)}`;
  const [a, b] = [original.metadata ?? {}, converted.metadata ?? {}];
  for (const f of ['name', 'namespace', 'uid'] as const) {
    if ((a[f] ?? '') !== (b[f] ?? '')) return `invalid metadata: metadata.${f}: Invalid value: ${JSON.stringify(b[f] ?? '')}: field is immutable`;
  }
  return undefined;
}
