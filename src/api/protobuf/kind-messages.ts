import { KIND_MESSAGES } from './schemas/all-messages.js';

/** Kinds of meta.k8s.io that travel as protobuf besides the resources' own. */
const META_KIND_MESSAGES: Readonly<Record<string, string>> = {
  'v1/Status': 'Status',
  'meta.k8s.io/v1/Status': 'Status',
  'meta.k8s.io/v1/PartialObjectMetadata': 'PartialObjectMetadata',
  'meta.k8s.io/v1beta1/PartialObjectMetadata': 'PartialObjectMetadata',
};

function kindMessage(apiVersion: string, kind: string): string | undefined {
  const key = `${apiVersion}/${kind}`;
  return KIND_MESSAGES[key] ?? META_KIND_MESSAGES[key];
}

/**
 * The message of `apiVersion`+`kind`, including `<Kind>List` of any such
 * kind; undefined when skiff has none (custom resources, Table, discovery).
 */
export function protobufMessageFor(apiVersion: string, kind: string): { type: string; list: boolean } | undefined {
  const type = kindMessage(apiVersion, kind);
  if (type) return { type, list: false };
  if (kind.endsWith('List')) {
    const item = kindMessage(apiVersion, kind.slice(0, -'List'.length));
    if (item) return { type: item, list: true };
  }
  return undefined;
}
