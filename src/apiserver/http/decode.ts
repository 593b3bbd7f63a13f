import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../api/object.js';
import { isObject } from '../../api/object.js';
import { decodeProtobufObject } from '../../api/protobuf/decode-protobuf-object.js';
import { ProtobufDecodeError } from '../../api/protobuf/protobuf-decode-error.js';
import { ApiError, badRequest, unsupportedMediaType } from '../../machinery/api-error.js';
import { parseMediaType } from './media-type.js';

export type BodyFormat = 'json' | 'yaml' | 'protobuf';

export function bodyFormat(contentType: string | undefined): BodyFormat {
  const type = parseMediaType(contentType ?? 'application/json').type;
  switch (type) {
    case 'application/json':
    case '':
      return 'json';
    case 'application/yaml':
    case 'application/x-yaml':
    case 'text/yaml':
      return 'yaml';
    case 'application/vnd.kubernetes.protobuf':
      return 'protobuf';
    default:
      throw unsupportedMediaType(type);
  }
}

/** Parses JSON, reporting errors as upstream's decoder does (400 BadRequest). */
export function parseJson(buf: Buffer | string): unknown {
  try {
    return JSON.parse(typeof buf === 'string' ? buf : buf.toString('utf8'));
  } catch (err) {
    throw badRequest(`error decoding JSON: ${(err as Error).message}`);
  }
}

/** Parses a single YAML document (the API accepts exactly one object per request). */
export function parseYaml(buf: Buffer | string): unknown {
  const text = typeof buf === 'string' ? buf : buf.toString('utf8');
  let docs;
  try {
    docs = parseAllDocuments(text, { uniqueKeys: false });
  } catch (err) {
    throw badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
  const list = Array.isArray(docs) ? docs : [docs];
  const first = list[0];
  if (!first) throw badRequest('error decoding YAML: empty document');
  if (first.errors.length > 0) throw badRequest(`error decoding YAML: ${first.errors[0].message}`);
  return first.toJS({ maxAliasCount: 100 });
}

/** Decodes a request body into an object, by content type. */
export function decodeObjectBody(buf: Buffer, contentType: string | undefined): KubeObject {
  const format = bodyFormat(contentType);
  if (buf.length === 0) throw badRequest('the body of the request was empty');
  let value: unknown;
  if (format === 'protobuf') {
    try {
      value = decodeProtobufObject(buf);
    } catch (err) {
      if (err instanceof ProtobufDecodeError && err.reason === 'unsupported') {
        throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format: ${err.message}`);
      }
      if (err instanceof ProtobufDecodeError) throw badRequest(`error decoding protobuf: ${err.message}`);
      throw err;
    }
  } else {
    value = format === 'json' ? parseJson(buf) : parseYaml(buf);
  }
  if (!isObject(value)) throw badRequest(`Object 'Kind' is missing in '${buf.toString('utf8').slice(0, 200)}'`);
  if (value.metadata !== undefined && !isObject(value.metadata)) {
    throw badRequest('json: cannot unmarshal into Go struct field .metadata of type v1.ObjectMeta');
  }
  return value as KubeObject;
}
