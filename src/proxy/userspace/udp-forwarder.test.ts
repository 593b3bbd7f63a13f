import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { UdpForwarder } from './udp-forwarder.js';

function bound(): Promise<dgram.Socket> {
  const s = dgram.createSocket('udp4');
  return new Promise((resolve) => s.bind(0, '127.0.0.1', () => resolve(s)));
}

describe('UdpForwarder', () => {
  it('relays datagrams to the picked backend and replies back to the client', async () => {
    const backend = await bound();
    backend.on('message', (msg, rinfo) => backend.send(Buffer.concat([Buffer.from('echo:'), msg]), rinfo.port, rinfo.address));
    const probe = await bound();
    const port = (probe.address() as AddressInfo).port;
    probe.close();
    const forwarder = new UdpForwarder('127.0.0.1', port, () => ({ ip: '127.0.0.1', port: (backend.address() as AddressInfo).port }));
    await forwarder.listen();
    const client = await bound();
    try {
      const reply = new Promise<string>((resolve) => client.once('message', (m) => resolve(m.toString())));
      client.send('hi', port, '127.0.0.1');
      assert.equal(await reply, 'echo:hi');
    } finally {
      client.close();
      backend.close();
      await forwarder.close();
    }
  });
});
