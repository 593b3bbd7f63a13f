import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './columns.js';
import { column, convertor } from './table-convertor.js';

/** Upstream's printer for ValidatingAdmissionPolicy: name, number of validations, paramKind, age. */
export const validatingAdmissionPolicyTable = convertor<ValidatingAdmissionPolicy>(
  [NAME_COLUMN, column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'), column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'), AGE_COLUMN],
  (p, now) => {
    const kind = p.spec?.paramKind;
    return [p.metadata?.name ?? '', (p.spec?.validations ?? []).length, kind ? `${kind.apiVersion}/${kind.kind}` : '<unset>', translateTimestampSince(p.metadata?.creationTimestamp, now)];
  },
);

/** Upstream's printer for ValidatingAdmissionPolicyBinding: name, policy, paramRef, age. */
export const validatingAdmissionPolicyBindingTable = convertor<ValidatingAdmissionPolicyBinding>(
  [NAME_COLUMN, column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'), column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'), AGE_COLUMN],
  (b, now) => {
    const ref = b.spec?.paramRef;
    const refText = !ref ? '<unset>' : ref.name ? (ref.namespace ? `${ref.namespace}/${ref.name}` : `*/${ref.name}`) : `${ref.namespace ? ref.namespace : '*'}/${JSON.stringify(ref.selector)}`;
    return [b.metadata?.name ?? '', b.spec?.policyName ?? '', refText, translateTimestampSince(b.metadata?.creationTimestamp, now)];
  },
);
