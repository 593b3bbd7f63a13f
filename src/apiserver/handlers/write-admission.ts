import type { KubeObject } from '../../api/object.js';
import type { AdmissionAttributes, Operation } from '../admission/admission.js';
import type { WriteAdmission } from '../registry/write-admission.js';
import { addWarning } from '../http/warnings.js';
import { addAuditAnnotation } from '../audit/request-audit.js';
import type { RequestScope } from './scope.js';

/** The admission attributes of this request for one object (old and/or new). */
export function admissionAttributes(
  scope: RequestScope,
  operation: Operation,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
  dryRun: boolean,
  kind = { group: scope.resource.group, version: scope.resource.version, kind: scope.resource.kind },
): AdmissionAttributes {
  const meta = object?.metadata ?? oldObject?.metadata;
  return {
    operation,
    kind,
    resource: { group: scope.resource.group, version: scope.resource.version, resource: scope.resource.resource },
    subresource: scope.info.subresource,
    namespace: scope.info.namespace || (scope.resource.namespaced ? (meta?.namespace ?? '') : ''),
    name: scope.info.name || (meta?.name ?? ''),
    object,
    oldObject,
    dryRun,
    user: scope.user,
    warn: (text) => addWarning(scope.res, text),
    addAuditAnnotation: (key, value) => addAuditAnnotation(scope.req, key, value),
    trace: scope.trace,
  };
}

/** Binds the request's admission chains for the store to call at the right points of a write. */
export function writeAdmission(scope: RequestScope, dryRun: boolean): WriteAdmission {
  return {
    mutate: (operation, object, old) => scope.admission.admit(admissionAttributes(scope, operation, object, old, dryRun)),
    validate: (operation, object, old) => scope.admission.validate(admissionAttributes(scope, operation, object, old, dryRun)),
  };
}
