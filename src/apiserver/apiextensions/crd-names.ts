import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames } from 'kubernetes-types/apiextensions/v1.js';

/**
 * The naming decision, as upstream's naming controller: a CRD's requested
 * names are accepted unless another CRD of the same group has accepted them
 * already (plural, singular and short names share one namespace; kind and
 * listKind another). Names a CRD has accepted stay its own. Pure: the
 * controller applies the result.
 */

export interface NamesDecision {
  acceptedNames: CustomResourceDefinitionNames;
  namesAccepted: Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>;
  established: Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>;
}

export function decideNames(crd: CustomResourceDefinition, others: readonly CustomResourceDefinition[]): NamesDecision {
  const group = crd.spec.group;
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    if (o.metadata?.name === crd.metadata?.name || o.spec.group !== group) continue;
    const n = o.status?.acceptedNames;
    if (!n) continue;
    for (const r of [n.plural, n.singular ?? '', ...(n.shortNames ?? [])]) if (r) resources.add(r);
    for (const k of [n.kind, n.listKind ?? '']) if (k) kinds.add(k);
  }
  const requested = crd.spec.names;
  const accepted: Partial<CustomResourceDefinitionNames> = crd.status?.acceptedNames ?? {};
  const next: CustomResourceDefinitionNames = { plural: accepted.plural ?? '', kind: accepted.kind ?? '' };
  if (accepted.singular !== undefined) next.singular = accepted.singular;
  if (accepted.shortNames !== undefined) next.shortNames = accepted.shortNames;
  if (accepted.listKind !== undefined) next.listKind = accepted.listKind;
  let conflict: { reason: string; message: string } | undefined;
  const take = (want: string | undefined, had: string | undefined, used: Set<string>, reason: string): boolean => {
    if (!want || want === had || !used.has(want)) return true;
    conflict = { reason, message: `"${want}" is already in use` };
    return false;
  };
  if (take(requested.plural, accepted.plural, resources, 'PluralConflict')) next.plural = requested.plural;
  if (take(requested.singular, accepted.singular, resources, 'SingularConflict') && requested.singular !== undefined) next.singular = requested.singular;
  const owned = new Set(accepted.shortNames ?? []);
  const shortErrors = (requested.shortNames ?? []).filter((s) => !owned.has(s) && resources.has(s)).map((s) => `"${s}" is already in use`);
  if (shortErrors.length) conflict = { reason: 'ShortNamesConflict', message: shortErrors.length === 1 ? shortErrors[0] : `[${shortErrors.join(', ')}]` };
  else if (requested.shortNames !== undefined) next.shortNames = requested.shortNames;
  else delete next.shortNames;
  if (take(requested.kind, accepted.kind, kinds, 'KindConflict')) next.kind = requested.kind;
  if (take(requested.listKind, accepted.listKind, kinds, 'ListKindConflict') && requested.listKind !== undefined) next.listKind = requested.listKind;
  if (requested.categories !== undefined) next.categories = requested.categories;
  else delete next.categories;

  const namesAccepted = conflict
    ? { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: conflict.message }
    : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  const wasEstablished = (crd.status?.conditions ?? []).find((c) => c.type === 'Established' && c.status === 'True');
  let established: NamesDecision['established'];
  if (wasEstablished) established = { type: 'Established', status: 'True', reason: wasEstablished.reason, message: wasEstablished.message };
  else if (!conflict) established = { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' };
  else established = { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  return { acceptedNames: next, namesAccepted, established };
}

/** Sets a condition, keeping lastTransitionTime when the status did not change; true when anything changed. */
export function setCondition(
  conditions: CustomResourceDefinitionCondition[],
  c: Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>,
  now: string,
): boolean {
  const i = conditions.findIndex((x) => x.type === c.type);
  const old = i >= 0 ? conditions[i] : undefined;
  if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) return false;
  const next = { ...c, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : now };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
  return true;
}
