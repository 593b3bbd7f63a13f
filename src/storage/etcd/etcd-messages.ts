import { WireReader, WireType, wireFields as fields } from '../../api/protobuf/wire-reader.js';
import { WireWriter } from '../../api/protobuf/wire-writer.js';

/** etcd's messages are proto3: zero scalars are left out unless a oneof needs them. */
const proto3 = () => new WireWriter({ skipDefaults: true });

/**
 * Encoders and decoders for the slice of etcd's v3 API (etcdserverpb and
 * mvccpb) this backend uses. Field numbers follow etcd's rpc.proto and
 * kv.proto; unknown fields are skipped, so newer servers stay compatible.
 */

const decoder = new TextDecoder();

export interface EtcdKeyValue {
  key: string;
  value: Uint8Array;
  createRevision: number;
  modRevision: number;
}

/** Keys travel as bytes; strings are UTF-8 encoded. */
export type KeyBytes = string | Uint8Array;

export interface RangeRequest {
  key: KeyBytes;
  rangeEnd?: KeyBytes;
  limit?: number;
  revision?: number;
  keysOnly?: boolean;
  countOnly?: boolean;
}

export interface RangeResponse {
  revision: number;
  kvs: EtcdKeyValue[];
  more: boolean;
  count: number;
}

export type RequestOp =
  | { range: RangeRequest }
  | { put: { key: string; value: Uint8Array; prevKv?: boolean } }
  | { deleteRange: { key: string; rangeEnd?: KeyBytes; prevKv?: boolean } };

export type ResponseOp =
  | { range: RangeResponse }
  | { put: { prevKv?: EtcdKeyValue } }
  | { deleteRange: { deleted: number; prevKvs: EtcdKeyValue[] } };

/** compare `target` of `key` EQUAL to `value` (the only comparison we need). */
export interface Compare {
  key: string;
  target: 'create' | 'mod';
  value: number;
}

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface TxnResponse {
  revision: number;
  succeeded: boolean;
  responses: ResponseOp[];
}

export interface WatchCreateRequest {
  key: KeyBytes;
  rangeEnd?: KeyBytes;
  startRevision?: number;
  prevKv?: boolean;
  progressNotify?: boolean;
}

export interface EtcdEvent {
  type: 'PUT' | 'DELETE';
  kv: EtcdKeyValue;
  prevKv?: EtcdKeyValue;
}

export interface WatchResponse {
  revision: number;
  watchId: number;
  created: boolean;
  canceled: boolean;
  compactRevision: number;
  cancelReason: string;
  events: EtcdEvent[];
}

function rangeRequest(r: RangeRequest): WireWriter {
  return proto3()
    .bytes(1, r.key, true)
    .bytes(2, r.rangeEnd)
    .uint(3, r.limit)
    .uint(4, r.revision)
    .uint(8, r.keysOnly)
    .uint(9, r.countOnly);
}

export function encodeRangeRequest(r: RangeRequest): Uint8Array {
  return rangeRequest(r).finish();
}

function requestOp(op: RequestOp): WireWriter {
  const w = proto3();
  if ('range' in op) return w.message(1, rangeRequest(op.range));
  if ('put' in op) return w.message(2, proto3().bytes(1, op.put.key, true).bytes(2, op.put.value).uint(4, op.put.prevKv));
  return w.message(3, proto3().bytes(1, op.deleteRange.key, true).bytes(2, op.deleteRange.rangeEnd).uint(3, op.deleteRange.prevKv));
}

export function encodeTxnRequest(t: TxnRequest): Uint8Array {
  const w = proto3();
  for (const c of t.compare) {
    // result EQUAL (0) is the default; target CREATE = 1, MOD = 2; the oneof value must be present even when 0.
    const cmp = proto3().uint(2, c.target === 'create' ? 1 : 2).bytes(3, c.key, true);
    cmp.uint(c.target === 'create' ? 5 : 6, c.value, true);
    w.message(1, cmp);
  }
  for (const op of t.success) w.message(2, requestOp(op));
  for (const op of t.failure) w.message(3, requestOp(op));
  return w.finish();
}

export function encodeCompactionRequest(revision: number): Uint8Array {
  return proto3().uint(1, revision).finish();
}

export function encodeWatchCreate(r: WatchCreateRequest): Uint8Array {
  const create = proto3()
    .bytes(1, r.key, true)
    .bytes(2, r.rangeEnd)
    .uint(3, r.startRevision)
    .uint(4, r.progressNotify)
    .uint(6, r.prevKv);
  return proto3().message(1, create).finish();
}

export function encodeWatchProgress(): Uint8Array {
  return proto3().message(3, proto3()).finish();
}

/** The revision in a ResponseHeader. */
function headerRevision(buf: Uint8Array): number {
  for (const f of fields(buf)) if (f.field === 3) return f.num;
  return 0;
}

/** The server version in a Maintenance.Status response (StatusResponse field 2). */
export function decodeStatusVersion(buf: Uint8Array): string {
  for (const f of fields(buf)) if (f.field === 2) return decoder.decode(f.data);
  return '';
}

/** The backend's size in a Maintenance.Status response (dbSize, field 3). */
export function decodeStatusDbSize(buf: Uint8Array): number {
  for (const f of fields(buf)) if (f.field === 3) return f.num;
  return 0;
}

/** etcd's AlarmType (NONE = 0 is never reported). */
export type EtcdAlarmType = 'NOSPACE' | 'CORRUPT';

/** One raised alarm: member IDs are 64-bit, so they stay bigints to be sent back exactly. */
export interface EtcdAlarm {
  memberId: bigint;
  alarm: EtcdAlarmType;
}

const ALARM_TYPES: Record<number, EtcdAlarmType> = { 1: 'NOSPACE', 2: 'CORRUPT' };

/** AlarmRequest: GET (0) lists raised alarms; DEACTIVATE (2) clears one member's alarm of one type. */
export function encodeAlarmRequest(r: { action: 'GET' } | { action: 'DEACTIVATE'; memberId: bigint; alarm: EtcdAlarmType }): Uint8Array {
  if (r.action === 'GET') return proto3().finish();
  return proto3()
    .uint(1, 2)
    .uint(2, r.memberId)
    .uint(3, r.alarm === 'NOSPACE' ? 1 : 2)
    .finish();
}

/** The alarms of an AlarmResponse (field 2, AlarmMember: memberID 1, alarm 2). */
export function decodeAlarmResponse(buf: Uint8Array): EtcdAlarm[] {
  const out: EtcdAlarm[] = [];
  for (const f of fields(buf)) {
    if (f.field !== 2) continue;
    const member: EtcdAlarm = { memberId: 0n, alarm: 'NOSPACE' };
    let type = 0;
    const r = new WireReader(f.data);
    while (!r.done) {
      const tag = r.tag();
      if (tag.field === 1 && tag.wireType === WireType.Varint) member.memberId = r.varint();
      else if (tag.field === 2 && tag.wireType === WireType.Varint) type = r.uint();
      else r.skip(tag);
    }
    const alarm = ALARM_TYPES[type];
    if (alarm) out.push({ ...member, alarm });
  }
  return out;
}

/** Decodes the header of any response (field 1 is the header in all of them). */

export function decodeHeaderRevision(buf: Uint8Array): number {
  for (const f of fields(buf)) if (f.field === 1) return headerRevision(f.data);
  return 0;
}

export function decodeKeyValue(buf: Uint8Array): EtcdKeyValue {
  const kv: EtcdKeyValue = { key: '', value: new Uint8Array(0), createRevision: 0, modRevision: 0 };
  for (const f of fields(buf)) {
    if (f.field === 1) kv.key = decoder.decode(f.data);
    else if (f.field === 2) kv.createRevision = f.num;
    else if (f.field === 3) kv.modRevision = f.num;
    // copied: the frame buffer it points into is reused by nobody, but values outlive the response
    else if (f.field === 5) kv.value = Uint8Array.prototype.slice.call(f.data);
  }
  return kv;
}

export function decodeRangeResponse(buf: Uint8Array): RangeResponse {
  const out: RangeResponse = { revision: 0, kvs: [], more: false, count: 0 };
  for (const f of fields(buf)) {
    if (f.field === 1) out.revision = headerRevision(f.data);
    else if (f.field === 2) out.kvs.push(decodeKeyValue(f.data));
    else if (f.field === 3) out.more = f.num !== 0;
    else if (f.field === 4) out.count = f.num;
  }
  return out;
}

function decodeResponseOp(buf: Uint8Array): ResponseOp | undefined {
  for (const f of fields(buf)) {
    if (f.field === 1) return { range: decodeRangeResponse(f.data) };
    if (f.field === 2) {
      let prevKv: EtcdKeyValue | undefined;
      for (const g of fields(f.data)) if (g.field === 2) prevKv = decodeKeyValue(g.data);
      return { put: prevKv ? { prevKv } : {} };
    }
    if (f.field === 3) {
      const out = { deleted: 0, prevKvs: [] as EtcdKeyValue[] };
      for (const g of fields(f.data)) {
        if (g.field === 2) out.deleted = g.num;
        else if (g.field === 3) out.prevKvs.push(decodeKeyValue(g.data));
      }
      return { deleteRange: out };
    }
  }
  return undefined;
}

export function decodeTxnResponse(buf: Uint8Array): TxnResponse {
  const out: TxnResponse = { revision: 0, succeeded: false, responses: [] };
  for (const f of fields(buf)) {
    if (f.field === 1) out.revision = headerRevision(f.data);
    else if (f.field === 2) out.succeeded = f.num !== 0;
    else if (f.field === 3) {
      const op = decodeResponseOp(f.data);
      if (op) out.responses.push(op);
    }
  }
  return out;
}

function decodeEvent(buf: Uint8Array): EtcdEvent {
  const ev: EtcdEvent = { type: 'PUT', kv: decodeKeyValue(new Uint8Array(0)) };
  for (const f of fields(buf)) {
    if (f.field === 1) ev.type = f.num === 1 ? 'DELETE' : 'PUT';
    else if (f.field === 2) ev.kv = decodeKeyValue(f.data);
    else if (f.field === 3) ev.prevKv = decodeKeyValue(f.data);
  }
  return ev;
}

export function decodeWatchResponse(buf: Uint8Array): WatchResponse {
  const out: WatchResponse = { revision: 0, watchId: 0, created: false, canceled: false, compactRevision: 0, cancelReason: '', events: [] };
  for (const f of fields(buf)) {
    if (f.field === 1) out.revision = headerRevision(f.data);
    else if (f.field === 2) out.watchId = f.num;
    else if (f.field === 3) out.created = f.num !== 0;
    else if (f.field === 4) out.canceled = f.num !== 0;
    else if (f.field === 5) out.compactRevision = f.num;
    else if (f.field === 6) out.cancelReason = decoder.decode(f.data);
    else if (f.field === 11) out.events.push(decodeEvent(f.data));
  }
  return out;
}
