import type { CertificateSigningRequest, CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import { asKind, type KubeObject } from '../../../api/object.js';
import type { ResourceInfo } from '../../../api/resource-info.js';
import { parseCertificateRequest } from '../../../api/validation/certificates.js';
import { invalid as invalidError } from '../../../machinery/invalid.js';
import { defaultStrategy, metadataFields } from '../default-strategy.js';
import type { Strategy } from '../strategy.js';

const APPROVAL_TYPES = new Set(['Approved', 'Denied']);

/** New or changed conditions get their timestamps from the server, as upstream's populateConditionTimestamps. */
function stampConditions(csr: CertificateSigningRequest, old: CertificateSigningRequest | undefined, now: Date): void {
  const at = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (const c of csr.status?.conditions ?? []) {
    const before = old?.status?.conditions?.find((o) => o.type === c.type);
    c.lastUpdateTime ||= at;
    if (!c.lastTransitionTime) c.lastTransitionTime = before && before.status === c.status ? (before.lastTransitionTime ?? at) : at;
  }
}

function conditions(csr: CertificateSigningRequest, approval: boolean): CertificateSigningRequestCondition[] {
  return (csr.status?.conditions ?? []).filter((c) => APPROVAL_TYPES.has(c.type) === approval);
}

/**
 * certificates.k8s.io/v1 CSRs: the spec is immutable, the main resource never
 * changes status, /approval changes only the Approved/Denied conditions and
 * /status everything else (the signer's certificate and Failed condition).
 */
export function certificateSigningRequestStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    prepareForCreate(obj) {
      delete obj.status;
    },
    prepareForUpdate(obj, old) {
      obj.spec = structuredClone(old.spec);
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
    },
    prepareForSubresourceUpdate(subresource, obj, old, ctx) {
      const csr = asKind<CertificateSigningRequest>(obj);
      const before = asKind<CertificateSigningRequest>(old);
      csr.spec = structuredClone(before.spec);
      if (subresource === 'approval') {
        // only the decision comes from the request; the signer's part stays as it was
        const decided = conditions(csr, true);
        csr.status = { ...structuredClone(before.status ?? {}), conditions: [...conditions(before, false), ...decided] };
      } else {
        csr.status = { ...(csr.status ?? {}), conditions: [...conditions(before, true), ...conditions(csr, false)] };
      }
      if (!csr.status.conditions?.length) delete csr.status.conditions;
      stampConditions(csr, before, ctx.now);
    },
    async beforeCreate(obj) {
      // the request must be signed by the key it carries (upstream's CheckSignature)
      const csr = asKind<CertificateSigningRequest>(obj);
      let ok = false;
      try {
        ok = await parseCertificateRequest(csr.spec?.request).verify();
      } catch {
        ok = false;
      }
      if (!ok) {
        throw invalidError({ group: info.group, kind: info.kind }, obj.metadata?.name ?? '', [
          { type: 'FieldValueInvalid', field: 'spec.request', badValue: csr.spec?.request ?? null, detail: 'x509: signature verification failure' },
        ]);
      }
    },
    selectableFields: (obj: KubeObject) => ({ ...metadataFields(obj, info), 'spec.signerName': asKind<CertificateSigningRequest>(obj).spec?.signerName ?? '' }),
  });
}
