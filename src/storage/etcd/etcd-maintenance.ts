import type { StorageAlarm } from '../storage.js';
import { decodeAlarmResponse, decodeStatusDbSize, encodeAlarmRequest, type EtcdAlarm } from './etcd-messages.js';
import { GrpcConnection, type TlsMaterial } from './grpc-connection.js';

const MAINTENANCE = '/etcdserverpb.Maintenance/';

/** Defragmenting rewrites a member's whole backend: give it longer than a read. */
const DEFRAGMENT_TIMEOUT_MS = 120_000;

/** The cluster's raised alarms (any member answers for all of them). */
export async function listAlarms(connection: GrpcConnection, timeoutMs: number): Promise<EtcdAlarm[]> {
  return decodeAlarmResponse(await connection.unary(`${MAINTENANCE}Alarm`, encodeAlarmRequest({ action: 'GET' }), timeoutMs));
}

/** etcd's alarms as storage reports them (the member in hex, as etcdctl prints it). */
export function storageAlarms(alarms: EtcdAlarm[]): StorageAlarm[] {
  return alarms.map((a) => ({
    type: a.alarm,
    message: a.alarm === 'NOSPACE'
      ? `etcd member ${a.memberId.toString(16)}: database space exceeded (--quota-backend-bytes); writes are refused until it is compacted, defragmented and the alarm disarmed`
      : `etcd member ${a.memberId.toString(16)}: data corruption detected`,
  }));
}

/** The backend size (dbSize) of each member, by client URL. */
export async function memberSizes(endpoints: string[], tls: TlsMaterial | undefined): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await forEachMember(endpoints, tls, async (endpoint, connection) => {
    out.set(endpoint, decodeStatusDbSize(await connection.unary(`${MAINTENANCE}Status`, new Uint8Array(0), 10_000)));
  });
  return out;
}

/**
 * What `etcdctl defrag --cluster && etcdctl alarm disarm` does: every member
 * gives its free pages back to the file system (one at a time; a member
 * defragmenting serves nothing), then the NOSPACE alarms are deactivated.
 * A member still over its quota raises the alarm again at the next write.
 * CORRUPT alarms are left alone: only an operator may judge those.
 */
export async function defragmentCluster(endpoints: string[], tls: TlsMaterial | undefined): Promise<void> {
  await forEachMember(endpoints, tls, async (_endpoint, connection) => {
    await connection.unary(`${MAINTENANCE}Defragment`, new Uint8Array(0), DEFRAGMENT_TIMEOUT_MS);
  });
  const connection = new GrpcConnection({ endpoints, ...(tls ? { tls } : {}) });
  try {
    for (const a of await listAlarms(connection, 10_000)) {
      if (a.alarm !== 'NOSPACE') continue;
      await connection.unary(`${MAINTENANCE}Alarm`, encodeAlarmRequest({ action: 'DEACTIVATE', memberId: a.memberId, alarm: a.alarm }), 10_000);
    }
  } finally {
    connection.close();
  }
}

/** Runs `fn` on a connection to each member in turn (maintenance calls act on the member they reach). */
async function forEachMember(endpoints: string[], tls: TlsMaterial | undefined, fn: (endpoint: string, connection: GrpcConnection) => Promise<void>): Promise<void> {
  for (const endpoint of endpoints) {
    const connection = new GrpcConnection({ endpoints: [endpoint], ...(tls ? { tls } : {}) });
    try {
      await fn(endpoint, connection);
    } finally {
      connection.close();
    }
  }
}
