import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionSpec,
  CustomResourceDefinitionVersion,
  CustomResourceSubresources,
} from 'kubernetes-types/apiextensions/v1.js';
import { child, forbidden, index, invalid, notSupported, required, validateImmutableField, type ErrorList } from '../../api/validation/errors.js';
import { isDNS1035Label, isDNS1123Subdomain, nameIsDNSSubdomain, type NameValidator } from '../../api/validation/name.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../api/validation/object-meta.js';
import { validateSchemaProps } from './schema/schema-props.js';
import { validateStructural } from './schema/structural.js';
import { compileSchemaRules } from './schema/cel-rules.js';
import { versionSchema } from './schema/json-schema.js';

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition validation, as upstream's
 * pkg/apis/apiextensions/validation: names, scope, versions (exactly one
 * storage version), per-version schemas (required, structural, OpenAPI v3
 * subset), subresources and printer columns.
 */

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

export function validateCustomResourceDefinition(crd: CustomResourceDefinition): ErrorList {
  const spec = crd.spec ?? ({} as CustomResourceDefinitionSpec);
  const nameFn: NameValidator = (name, prefix) => {
    const errs = nameIsDNSSubdomain(name, prefix);
    if (name !== `${spec.names?.plural ?? ''}.${spec.group ?? ''}`) errs.push('must be spec.names.plural+"."+spec.group');
    return errs;
  };
  return [
    ...validateObjectMeta(crd.metadata, false, nameFn),
    ...validateSpec(spec, 'spec'),
    ...validateNames(crd.status?.acceptedNames, 'status.acceptedNames'),
  ];
}

export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): ErrorList {
  const spec = crd.spec ?? ({} as CustomResourceDefinitionSpec);
  const oldSpec = old.spec ?? ({} as CustomResourceDefinitionSpec);
  const errs = [...validateObjectMetaUpdate(crd.metadata, old.metadata), ...validateSpec(spec, 'spec')];
  const established = (old.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  if (established) {
    // these decide the storage layout
    errs.push(...validateImmutableField(spec.scope, oldSpec.scope, 'spec.scope'));
    errs.push(...validateImmutableField(spec.names?.kind, oldSpec.names?.kind, 'spec.names.kind'));
  }
  // these make up the CRD's own name
  errs.push(...validateImmutableField(spec.group, oldSpec.group, 'spec.group'));
  errs.push(...validateImmutableField(spec.names?.plural, oldSpec.names?.plural, 'spec.names.plural'));
  errs.push(...validateNames(crd.status?.acceptedNames, 'status.acceptedNames'));
  errs.push(...validateStoredVersions(crd.status?.storedVersions ?? [], spec.versions ?? []));
  return errs;
}

export function validateCustomResourceDefinitionStatusUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): ErrorList {
  return [...validateObjectMetaUpdate(crd.metadata, old.metadata), ...validateNames(crd.status?.acceptedNames, 'status.acceptedNames')];
}

function validateStoredVersions(stored: string[], versions: CustomResourceDefinitionVersion[]): ErrorList {
  const names = new Set(versions.map((v) => v.name));
  return stored.flatMap((v, i) => (names.has(v) ? [] : [invalid(index('status.storedVersions', i), v, 'must appear in spec.versions')]));
}

function validateSpec(spec: CustomResourceDefinitionSpec, path: string): ErrorList {
  const errs: ErrorList = [];
  const group = spec.group ?? '';
  if (!group) errs.push(required(child(path, 'group')));
  else {
    const msgs = isDNS1123Subdomain(group);
    if (msgs.length) errs.push(invalid(child(path, 'group'), group, msgs.join(',')));
    else if (group.split('.').length < 2) errs.push(invalid(child(path, 'group'), group, 'should be a domain with at least one dot'));
  }
  if (!spec.scope) errs.push(required(child(path, 'scope')));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') errs.push(notSupported(child(path, 'scope'), spec.scope, ['Cluster', 'Namespaced']));

  const versions = spec.versions ?? [];
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const msgs = isDNS1035Label(v.name ?? '');
    if (msgs.length) errs.push(invalid(child(index(child(path, 'versions'), i), 'name'), v.name ?? '', msgs.join(',')));
    errs.push(...validateVersion(v, index(child(path, 'versions'), i)));
  });
  if (!unique) errs.push(invalid(child(path, 'versions'), versions, 'must contain unique version names'));
  if (versions.filter((v) => v.storage).length !== 1) {
    errs.push(invalid(child(path, 'versions'), versions, 'must have exactly one version marked as storage version'));
  }

  const names = spec.names ?? ({} as CustomResourceDefinitionNames);
  for (const f of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (!names[f]) errs.push(required(child(path, 'names', f)));
  }
  errs.push(...validateNames(names, child(path, 'names')));

  if (spec.preserveUnknownFields === true) {
    errs.push(invalid(child(path, 'preserveUnknownFields'), true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  const conversion = spec.conversion;
  if (conversion) {
    const strategy = conversion.strategy;
    if (strategy !== 'None' && strategy !== 'Webhook') errs.push(notSupported(child(path, 'conversion', 'strategy'), strategy ?? '', ['None', 'Webhook']));
    if (strategy === 'Webhook') {
      if (!conversion.webhook) errs.push(required(child(path, 'conversion', 'webhook'), 'required when strategy is set to Webhook'));
      else {
        if (!conversion.webhook.clientConfig) errs.push(required(child(path, 'conversion', 'webhook', 'clientConfig'), 'required when strategy is set to Webhook'));
        if (!conversion.webhook.conversionReviewVersions?.length) {
          errs.push(required(child(path, 'conversion', 'webhook', 'conversionReviewVersions'), 'must contain at least one version'));
        }
      }
    } else if (conversion.webhook) {
      errs.push(forbidden(child(path, 'conversion', 'webhook'), 'should not be set when strategy is not set to Webhook'));
    }
  }
  return errs;
}

function validateVersion(v: CustomResourceDefinitionVersion, path: string): ErrorList {
  const errs: ErrorList = [];
  const schema = versionSchema(v);
  const schemaPath = child(path, 'schema', 'openAPIV3Schema');
  if (!schema) errs.push(required(schemaPath, 'schemas are required'));
  else {
    const own = validateSchemaProps(schema, schemaPath);
    errs.push(...own);
    if (own.length === 0) {
      const structural = validateStructural(schema, schemaPath);
      errs.push(...structural);
      if (structural.length === 0) compileSchemaRules(schema, schemaPath, errs);
    }
  }
  errs.push(...validateSubresources(v.subresources, child(path, 'subresources')));
  (v.additionalPrinterColumns ?? []).forEach((c, i) => errs.push(...validatePrinterColumn(c, index(child(path, 'additionalPrinterColumns'), i))));
  return errs;
}

function validateSubresources(sub: CustomResourceSubresources | undefined, path: string): ErrorList {
  const scale = sub?.scale;
  if (!scale) return [];
  const errs: ErrorList = [];
  const p = child(path, 'scale');
  const check = (value: string | undefined, f: string, prefixes: string[], detail: string) => {
    if (!value) {
      if (f !== 'labelSelectorPath') errs.push(required(child(p, f)));
      return;
    }
    if (!isSimpleJsonPath(value) || !prefixes.some((pre) => value.startsWith(pre))) errs.push(invalid(child(p, f), value, detail));
  };
  check(scale.specReplicasPath, 'specReplicasPath', ['.spec.'], 'should be a json path under .spec');
  check(scale.statusReplicasPath, 'statusReplicasPath', ['.status.'], 'should be a json path under .status');
  check(scale.labelSelectorPath, 'labelSelectorPath', ['.spec.', '.status.'], 'should be a json path under either .spec or .status');
  return errs;
}

function validatePrinterColumn(c: CustomResourceColumnDefinition, path: string): ErrorList {
  const errs: ErrorList = [];
  if (!c.name) errs.push(required(child(path, 'name')));
  if (!c.type) errs.push(required(child(path, 'type'), `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
  else if (!PRINTER_COLUMN_TYPES.includes(c.type)) errs.push(notSupported(child(path, 'type'), c.type, PRINTER_COLUMN_TYPES));
  if (c.format && !PRINTER_COLUMN_FORMATS.includes(c.format)) errs.push(notSupported(child(path, 'format'), c.format, PRINTER_COLUMN_FORMATS));
  if (!c.jsonPath) errs.push(required(child(path, 'jsonPath')));
  else if (!isSimpleJsonPath(c.jsonPath)) errs.push(invalid(child(path, 'jsonPath'), c.jsonPath, 'must be a simple json path starting with .'));
  return errs;
}

/** `.spec.replicas`, `.status.conditions[?(@.type=="Ready")].status`: starts with a dot, no braces (those are templates). */
function isSimpleJsonPath(p: string): boolean {
  return p.startsWith('.') && !p.includes('{') && !p.includes('}');
}

export function validateNames(names: CustomResourceDefinitionNames | undefined, path: string): ErrorList {
  if (!names) return [];
  const errs: ErrorList = [];
  const label = (value: string | undefined, f: string, mixedCase: boolean) => {
    if (!value) return;
    const msgs = isDNS1035Label(mixedCase ? value.toLowerCase() : value);
    if (msgs.length) errs.push(invalid(child(path, f), value, (mixedCase ? 'may have mixed case, but should otherwise match: ' : '') + msgs.join(',')));
  };
  label(names.plural, 'plural', false);
  label(names.singular, 'singular', false);
  label(names.kind, 'kind', true);
  label(names.listKind, 'listKind', true);
  (names.shortNames ?? []).forEach((s, i) => {
    const msgs = isDNS1035Label(s);
    if (msgs.length) errs.push(invalid(index(child(path, 'shortNames'), i), s, msgs.join(',')));
  });
  if (names.kind && names.kind === names.listKind) errs.push(invalid(child(path, 'listKind'), names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((s, i) => {
    const msgs = isDNS1035Label(s);
    if (msgs.length) errs.push(invalid(index(child(path, 'categories'), i), s, msgs.join(',')));
  });
  return errs;
}
