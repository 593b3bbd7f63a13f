import type { KubeObject } from '../../../api/object.js';
import type { AdmissionAttributes } from '../admission.js';

/** The `request` of an admission.k8s.io/v1 AdmissionReview. */
export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind: { group: string; version: string; kind: string };
  requestResource: { group: string; version: string; resource: string };
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  options?: { kind: string; apiVersion: string };
}

/** What a webhook answered, after the checks upstream makes. */
export interface AdmissionResult {
  allowed: boolean;
  status?: { code?: number; reason?: string; message?: string; status?: string; details?: unknown };
  /** The decoded JSON Patch (mutating webhooks only). */
  patch?: unknown;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** The review is malformed: upstream's "received invalid webhook response". */
export class InvalidAdmissionResponse extends Error {
  override readonly name = 'InvalidAdmissionResponse';
}

const OPTIONS_KIND: Record<string, string> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' };

/** Builds the v1 AdmissionReview for one webhook call; `kind`/`resource` are what the webhook's rules matched. */
export function admissionReview(
  uid: string,
  attrs: AdmissionAttributes,
  matched: { kind: AdmissionRequest['kind']; resource: AdmissionRequest['resource']; subresource: string },
  objects: { object?: KubeObject; oldObject?: KubeObject },
): { apiVersion: string; kind: string; request: AdmissionRequest } {
  const { user } = attrs;
  const request: AdmissionRequest = {
    uid,
    kind: matched.kind,
    resource: matched.resource,
    ...(matched.subresource ? { subResource: matched.subresource } : {}),
    requestKind: attrs.kind,
    requestResource: attrs.resource,
    ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
    operation: attrs.operation,
    userInfo: { username: user.name, ...(user.uid ? { uid: user.uid } : {}), ...(user.groups.length ? { groups: user.groups } : {}), ...(user.extra ? { extra: user.extra } : {}) },
    ...(objects.object ? { object: objects.object } : {}),
    ...(objects.oldObject ? { oldObject: objects.oldObject } : {}),
    dryRun: attrs.dryRun,
    ...(OPTIONS_KIND[attrs.operation] ? { options: { kind: OPTIONS_KIND[attrs.operation], apiVersion: 'meta.k8s.io/v1' } } : {}),
  };
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
}

/** Upstream's VerifyAdmissionResponse for admission.k8s.io/v1. */
export function verifyAdmissionResponse(uid: string, mutating: boolean, body: unknown): AdmissionResult {
  const review = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const response = review.response as Record<string, unknown> | undefined | null;
  if (!response || typeof response !== 'object') throw new InvalidAdmissionResponse('webhook response was absent');
  const [group, version] = String(review.apiVersion ?? '').includes('/') ? String(review.apiVersion).split('/', 2) : ['', String(review.apiVersion ?? '')];
  if (group !== 'admission.k8s.io' || version !== 'v1' || review.kind !== 'AdmissionReview') {
    throw new InvalidAdmissionResponse(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${group ? `${group}/` : ''}${version}, Kind=${String(review.kind ?? '')}`);
  }
  if (response.uid !== uid) throw new InvalidAdmissionResponse(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`);
  const patchText = typeof response.patch === 'string' ? response.patch : '';
  const patchType = typeof response.patchType === 'string' ? response.patchType : '';
  if (!mutating && (patchText || patchType)) throw new InvalidAdmissionResponse('validating webhook may not return response.patch or response.patchType');
  if (patchText && !patchType) throw new InvalidAdmissionResponse('webhook returned response.patch but not response.patchType');
  if (patchType && !patchText) throw new InvalidAdmissionResponse('webhook returned response.patchType but not response.patch');
  if (patchType && patchType !== 'JSONPatch') throw new InvalidAdmissionResponse(`webhook returned invalid response.patchType of ${JSON.stringify(patchType)}`);
  let patch: unknown;
  if (patchText) {
    try {
      patch = JSON.parse(Buffer.from(patchText, 'base64').toString('utf8'));
    } catch (err) {
      throw new InvalidAdmissionResponse(`webhook returned an undecodable response.patch: ${(err as Error).message}`);
    }
  }
  const warnings = Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === 'string') : [];
  const annotations = typeof response.auditAnnotations === 'object' && response.auditAnnotations !== null ? (response.auditAnnotations as Record<string, string>) : {};
  return { allowed: response.allowed === true, status: (response.status as AdmissionResult['status']) ?? undefined, patch, warnings, auditAnnotations: annotations };
}
