import type { KubeObject } from '../object.js';
import { decodeMessage } from './decode-message.js';
import { ProtobufDecodeError } from './protobuf-decode-error.js';
import { protobufMessageFor } from './kind-messages.js';
import { ALL_MESSAGES } from './schemas/all-messages.js';
import { WireReader, WireType } from './wire-reader.js';

/** The 4-byte prefix of every Kubernetes protobuf body: `k8s\0`. */
export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** The media type kubectl and client-go send protobuf bodies with. */
export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

export function isProtobufEnvelope(body: Uint8Array): boolean {
  return body.length >= 4 && PROTOBUF_MAGIC.every((b, i) => body[i] === b);
}

/** The fields of runtime.Unknown, the message right after the magic. */
interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

const utf8 = new TextDecoder('utf-8');

function readString(r: WireReader, wireType: number, what: string): string {
  if (wireType !== WireType.LengthDelimited) throw new ProtobufDecodeError(`${what}: expected length-delimited`);
  return utf8.decode(r.bytes());
}

function readEnvelope(body: Uint8Array): Envelope {
  const env: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  const r = new WireReader(body, PROTOBUF_MAGIC.length);
  while (!r.done) {
    const tag = r.tag();
    switch (tag.field) {
      case 1: {
        if (tag.wireType !== WireType.LengthDelimited) throw new ProtobufDecodeError('typeMeta: expected length-delimited');
        const t = new WireReader(r.bytes());
        while (!t.done) {
          const tt = t.tag();
          if (tt.field === 1) env.apiVersion = readString(t, tt.wireType, 'apiVersion');
          else if (tt.field === 2) env.kind = readString(t, tt.wireType, 'kind');
          else t.skip(tt);
        }
        break;
      }
      case 2:
        if (tag.wireType !== WireType.LengthDelimited) throw new ProtobufDecodeError('raw: expected length-delimited');
        env.raw = r.bytes();
        break;
      case 3:
        env.contentEncoding = readString(r, tag.wireType, 'contentEncoding');
        break;
      case 4:
        env.contentType = readString(r, tag.wireType, 'contentType');
        break;
      default:
        r.skip(tag);
    }
  }
  return env;
}

/**
 * Turns a `application/vnd.kubernetes.protobuf` body (magic + runtime.Unknown)
 * into the object exactly as its JSON form would look, with apiVersion and
 * kind taken from the envelope.
 */
export function decodeProtobufObject(body: Uint8Array): KubeObject {
  if (!isProtobufEnvelope(body)) throw new ProtobufDecodeError('body does not start with the k8s protobuf magic');
  const env = readEnvelope(body);
  if (env.contentEncoding !== '') {
    throw new ProtobufDecodeError(`unsupported content encoding ${JSON.stringify(env.contentEncoding)}`, 'unsupported');
  }
  if (env.contentType !== '' && env.contentType !== PROTOBUF_CONTENT_TYPE) {
    throw new ProtobufDecodeError(`unsupported embedded content type ${JSON.stringify(env.contentType)}`, 'unsupported');
  }
  if (env.kind === '' || env.apiVersion === '') throw new ProtobufDecodeError('envelope has no apiVersion/kind');
  const target = protobufMessageFor(env.apiVersion, env.kind);
  if (!target) throw new ProtobufDecodeError(`no protobuf schema for ${env.apiVersion} ${env.kind}`, 'unsupported');

  let fields: Record<string, unknown>;
  if (target.list) {
    fields = decodeList(env.raw, target.type);
  } else {
    fields = decodeMessage(env.raw, target.type, ALL_MESSAGES) as Record<string, unknown>;
  }
  return { apiVersion: env.apiVersion, kind: env.kind, ...fields };
}

/** `<Kind>List` is {1 ListMeta metadata, 2 repeated items}; items carry no TypeMeta. */
function decodeList(raw: Uint8Array, itemType: string): Record<string, unknown> {
  const r = new WireReader(raw);
  let metadata: Uint8Array = new Uint8Array(0);
  const items: unknown[] = [];
  while (!r.done) {
    const tag = r.tag();
    if ((tag.field === 1 || tag.field === 2) && tag.wireType !== WireType.LengthDelimited) {
      throw new ProtobufDecodeError('list: expected length-delimited field');
    }
    if (tag.field === 1) metadata = r.bytes();
    else if (tag.field === 2) items.push(decodeMessage(r.bytes(), itemType, ALL_MESSAGES, 1));
    else r.skip(tag);
  }
  return { metadata: decodeMessage(metadata, 'ListMeta', ALL_MESSAGES), items };
}
