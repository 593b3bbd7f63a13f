import type { KubeObject } from '../../api/object.js';
import type { UserInfo } from '../authentication/user-info.js';
import type { RequestTrace } from '../trace/request-trace.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** What admission sees of one write, as upstream's admission.Attributes. */
export interface AdmissionAttributes {
  operation: Operation;
  /** The kind of `object` (a Scale for the scale subresource, a Binding for pods/binding). */
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subresource: string;
  namespace: string;
  /** May be empty on CREATE with generateName (the name is drawn after mutating admission). */
  name: string;
  /** The object being written; mutating plugins change it in place. Absent for DELETE and CONNECT. */
  object?: KubeObject;
  /** The stored object, for UPDATE and DELETE. Read-only. */
  oldObject?: KubeObject;
  dryRun: boolean;
  user: UserInfo;
  /** Returns a warning to the client (a `Warning` header kubectl prints), as upstream's warning.AddWarning. */
  warn?(text: string): void;
  /** Records an audit annotation for this request (upstream's Attributes.AddAnnotation); absent when nothing audits. */
  addAuditAnnotation?(key: string, value: string): void;
  /** The request's trace when it is recorded: the chain records each plugin as a stage. */
  trace?: RequestTrace;
}

/** Every admission plugin has a name and says which operations it handles. */
export interface AdmissionPlugin {
  readonly name: string;
  handles(operation: Operation): boolean;
}

/** Mutating admission: may change `attrs.object`; rejects by throwing an ApiError. */
export interface MutatingAdmission extends AdmissionPlugin {
  admit(attrs: AdmissionAttributes): Promise<void>;
}

/** Validating admission: sees the final object (after defaulting and validation); rejects by throwing an ApiError. */
export interface ValidatingAdmission extends AdmissionPlugin {
  validate(attrs: AdmissionAttributes): Promise<void>;
}

export function isMutating(plugin: AdmissionPlugin): plugin is MutatingAdmission {
  return typeof (plugin as Partial<MutatingAdmission>).admit === 'function';
}

export function isValidating(plugin: AdmissionPlugin): plugin is ValidatingAdmission {
  return typeof (plugin as Partial<ValidatingAdmission>).validate === 'function';
}

/** Both admission phases as one value, the seam the request path calls. */
export interface Admission {
  admit(attrs: AdmissionAttributes): Promise<void>;
  validate(attrs: AdmissionAttributes): Promise<void>;
}
