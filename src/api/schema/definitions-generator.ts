import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { definitionPrefix, DEFINITION_REF_PREFIX, type Definitions, type GroupVersionKind, type OpenApiSchema } from './openapi-schema.js';

/**
 * Builds OpenAPI definitions from the `kubernetes-types` declaration files
 * with the TypeScript compiler API. Used by scripts/generate-schemas.ts and by
 * the staleness test; nothing at run time imports it (typescript is a dev
 * dependency).
 */

/** The group-versions whose every type is published (plus what they reference). */
export const SCHEMA_MODULES = [
  'meta/v1',
  'core/v1',
  'apiextensions/v1',
  'apps/v1',
  'authentication/v1',
  'authorization/v1',
  'batch/v1',
  'autoscaling/v1',
  'autoscaling/v2',
  'certificates/v1',
  'coordination/v1',
  'discovery/v1',
  'networking/v1',
  'flowcontrol/v1',
  'admissionregistration/v1',
  'events/v1',
  'policy/v1',
  'rbac/v1',
  'scheduling/v1',
  'apiregistration/v1',
  'storage/v1',
];

/** Group-versions kubernetes-types lacks, declared by hand in its layout under src/api/types. */
export const LOCAL_SCHEMA_MODULES: ReadonlySet<string> = new Set(['apiregistration/v1']);

export function localTypesDir(): string {
  return fileURLToPath(new URL('../types', import.meta.url));
}

/** The declaration file of a module: the hand-written one, else kubernetes-types'. */
export function moduleFile(module: string, root = kubernetesTypesDir()): string {
  return join(LOCAL_SCHEMA_MODULES.has(module) ? localTypesDir() : root, `${module}.d.ts`);
}

export const INT_OR_STRING = `${definitionPrefix('util/intstr')}.IntOrString`;

const INT_OR_STRING_SCHEMA: OpenApiSchema = {
  description:
    'IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.',
  type: 'string',
  format: 'int-or-string',
};

/** kubernetes-types only says `number`; these fields are int64 upstream (the rest are int32). */
const INT64_FIELDS = new Set([
  'activeDeadlineSeconds',
  'deletionGracePeriodSeconds',
  'expirationSeconds',
  'fsGroup',
  'generation',
  'gracePeriodSeconds',
  'observedGeneration',
  'remainingItemCount',
  'revision',
  'runAsGroup',
  'runAsUser',
  'startingDeadlineSeconds',
  'terminationGracePeriodSeconds',
]);

const DATE_TIME_ALIASES = new Set(['Time', 'MicroTime']);

const FREE_FORM_ALIASES = new Set(['JSON', 'JSONSchemaPropsOrArray', 'JSONSchemaPropsOrBool', 'JSONSchemaPropsOrStringArray']);

/** Rule's fields, embedded inline upstream; kubernetes-types drops them from the rules that embed it. */
const ADMISSION_RULE_PROPERTIES: Record<string, OpenApiSchema> = {
  resources: {
    description:
      "Resources is a list of resources this rule applies to.\n\nFor example: 'pods' means pods. 'pods/log' means the log subresource of pods. '*' means all resources, but not subresources. 'pods/*' means all subresources of pods. '*/scale' means all scale subresources. '*/*' means all resources and their subresources.\n\nIf wildcard is present, the validation rule will ensure resources do not overlap with each other.\n\nDepending on the enclosing object, subresources might not be allowed. Required.",
    type: 'array',
    items: { type: 'string' },
    'x-kubernetes-list-type': 'atomic',
  },
  scope: {
    description:
      'scope specifies the scope of this rule. Valid values are "Cluster", "Namespaced", and "*" "Cluster" means that only cluster-scoped resources will match this rule. Namespace API objects are cluster-scoped. "Namespaced" means that only namespaced resources will match this rule. "*" means that there are no scope restrictions. Subresources match the scope of their parent resource. Default is "*".',
    type: 'string',
  },
};

/** Fields upstream has that kubernetes-types leaves out (names it cannot spell, inline embeds). */
const EXTRA_PROPERTIES: Record<string, Record<string, OpenApiSchema>> = {
  RuleWithOperations: ADMISSION_RULE_PROPERTIES,
  NamedRuleWithOperations: ADMISSION_RULE_PROPERTIES,
  JSONSchemaProps: {
    'x-kubernetes-embedded-resource': { type: 'boolean' },
    'x-kubernetes-int-or-string': { type: 'boolean' },
    'x-kubernetes-list-map-keys': { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
    'x-kubernetes-list-type': { type: 'string' },
    'x-kubernetes-map-type': { type: 'string' },
    'x-kubernetes-preserve-unknown-fields': { type: 'boolean' },
    'x-kubernetes-validations': {
      type: 'array',
      items: { $ref: `${DEFINITION_REF_PREFIX}io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ValidationRule` },
      'x-kubernetes-list-map-keys': ['rule'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'rule',
      'x-kubernetes-patch-strategy': 'merge',
    },
  },
};

export class SchemaGenerationError extends Error {
  constructor(
    message: string,
    readonly where: string,
  ) {
    super(`${where}: ${message}`);
    this.name = 'SchemaGenerationError';
  }
}

export function kubernetesTypesDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('kubernetes-types/package.json'));
}

type TypeDeclaration = ts.InterfaceDeclaration | ts.TypeAliasDeclaration;

export function generateDefinitions(root = kubernetesTypesDir()): Definitions {
  const program = ts.createProgram(
    SCHEMA_MODULES.map((m) => moduleFile(m, root)),
    { noEmit: true, types: [], skipLibCheck: true },
  );
  const checker = program.getTypeChecker();
  const defs: Definitions = { [INT_OR_STRING]: INT_OR_STRING_SCHEMA };
  const queue: TypeDeclaration[] = [];

  const local = localTypesDir();
  const moduleOf = (sf: ts.SourceFile) => {
    const base = sf.fileName.startsWith(local) ? local : root;
    return relative(base, sf.fileName).replace(/\\/g, '/').replace(/\.d\.ts$/, '');
  };
  const nameOf = (decl: TypeDeclaration) => `${definitionPrefix(moduleOf(decl.getSourceFile()))}.${decl.name.text}`;

  for (const m of SCHEMA_MODULES) {
    const sf = program.getSourceFile(moduleFile(m, root));
    if (!sf) throw new SchemaGenerationError('declaration file not found', m);
    for (const st of sf.statements) if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) queue.push(st);
  }

  const refTo = (node: ts.TypeReferenceNode): OpenApiSchema => {
    let symbol = checker.getSymbolAtLocation(node.typeName);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const decl = symbol?.declarations?.find((d): d is TypeDeclaration => ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d));
    if (!decl) throw new SchemaGenerationError(`cannot resolve type ${node.typeName.getText()}`, node.getSourceFile().fileName);
    queue.push(decl);
    return { $ref: DEFINITION_REF_PREFIX + nameOf(decl) };
  };

  const typeSchema = (node: ts.TypeNode, field: string): OpenApiSchema => {
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { type: 'string' };
      case ts.SyntaxKind.BooleanKeyword:
        return { type: 'boolean' };
      case ts.SyntaxKind.NumberKeyword:
        return { type: 'integer', format: INT64_FIELDS.has(field) ? 'int64' : 'int32' };
    }
    if (ts.isLiteralTypeNode(node) && ts.isStringLiteral(node.literal)) return { type: 'string' };
    if (ts.isArrayTypeNode(node)) return { type: 'array', items: typeSchema(node.elementType, field) };
    if (ts.isUnionTypeNode(node)) {
      const kinds = new Set(node.types.map((t) => t.kind));
      if (kinds.has(ts.SyntaxKind.NumberKeyword) && kinds.has(ts.SyntaxKind.StringKeyword)) return { $ref: DEFINITION_REF_PREFIX + INT_OR_STRING };
      if (node.types.every((t) => ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal))) return { type: 'string' };
    }
    if (ts.isTypeReferenceNode(node)) {
      if (node.typeName.getText() === 'Array' && node.typeArguments?.length === 1) return { type: 'array', items: typeSchema(node.typeArguments[0], field) };
      return refTo(node);
    }
    if (ts.isTypeLiteralNode(node) && node.members.length === 1 && ts.isIndexSignatureDeclaration(node.members[0])) {
      return { type: 'object', additionalProperties: typeSchema(node.members[0].type, field) };
    }
    throw new SchemaGenerationError(`unsupported type ${node.getText()}`, field);
  };

  const declarationSchema = (decl: TypeDeclaration): OpenApiSchema => {
    const description = docComment(decl);
    // apiextensions' JSON and JSONSchemaPropsOr*: any JSON value, published without a type as upstream does
    if (FREE_FORM_ALIASES.has(decl.name.text)) return withDescription({}, description);
    if (ts.isTypeAliasDeclaration(decl)) {
      if (decl.type.kind !== ts.SyntaxKind.StringKeyword) throw new SchemaGenerationError('only string aliases are supported', decl.name.text);
      return withDescription({ type: 'string', ...(DATE_TIME_ALIASES.has(decl.name.text) ? { format: 'date-time' } : {}) }, description);
    }
    const properties: Record<string, OpenApiSchema> = {};
    const required: string[] = [];
    const literals: Record<string, string> = {};
    for (const member of decl.members) {
      if (!ts.isPropertySignature(member) || !member.type) continue;
      const name = member.name.getText().replace(/^"(.*)"$/, '$1');
      properties[name] = withDescription(typeSchema(member.type, name), docComment(member));
      if (!member.questionToken) required.push(name);
      if (ts.isLiteralTypeNode(member.type) && ts.isStringLiteral(member.type.literal)) literals[name] = member.type.literal.text;
    }
    Object.assign(properties, EXTRA_PROPERTIES[decl.name.text] ?? {});
    const schema: OpenApiSchema = withDescription({ type: 'object' }, description);
    if (Object.keys(properties).length) schema.properties = properties;
    if (required.length) schema.required = required;
    const gvk = groupVersionKind(literals);
    if (gvk) schema['x-kubernetes-group-version-kind'] = [gvk];
    return schema;
  };

  for (let decl = queue.shift(); decl; decl = queue.shift()) {
    const name = nameOf(decl);
    if (!defs[name]) defs[name] = declarationSchema(decl);
  }
  return sortKeys(defs);
}

/** Top-level kinds carry literal `apiVersion` and `kind` types in kubernetes-types. */
function groupVersionKind(literals: Record<string, string>): GroupVersionKind | undefined {
  const { apiVersion, kind } = literals;
  if (!apiVersion || !kind) return undefined;
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', kind, version: apiVersion } : { group: apiVersion.slice(0, slash), kind, version: apiVersion.slice(slash + 1) };
}

function withDescription(schema: OpenApiSchema, description: string | undefined): OpenApiSchema {
  return description ? { description, ...schema } : schema;
}

/**
 * The text of the `/** … *\/` comment before a node, taken verbatim rather
 * than through the JSDoc parser, which would swallow `@` in descriptions.
 */
function docComment(node: ts.Node): string | undefined {
  const sf = node.getSourceFile();
  const ranges = ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? [];
  const last = ranges.at(-1);
  if (!last) return undefined;
  const raw = sf.text.slice(last.pos, last.end);
  if (!raw.startsWith('/**')) return undefined;
  const lines = raw
    .slice(3, -2)
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, '').replace(/\s+$/, ''));
  while (lines.length && !lines[0].trim()) lines.shift();
  while (lines.length && !lines.at(-1)!.trim()) lines.pop();
  return lines.join('\n').trim() || undefined;
}

function sortKeys(defs: Definitions): Definitions {
  const out: Definitions = {};
  for (const k of Object.keys(defs).sort()) out[k] = defs[k];
  return out;
}

/** One definition per line: compact, yet diffs stay readable. */
export function renderDefinitions(defs: Definitions): string {
  const lines = Object.entries(defs).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `{\n${lines.join(',\n')}\n}\n`;
}
