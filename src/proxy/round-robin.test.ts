import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RoundRobinBalancer } from './round-robin.js';
import { usableEndpoints } from './usable-endpoints.js';
import { FakeClock } from '../base/fake-clock.js';

const a = { ip: '10.0.0.1', port: 80 };
const b = { ip: '10.0.0.2', port: 80 };
const c = { ip: '10.0.0.3', port: 80 };

describe('RoundRobinBalancer', () => {
  it('cycles through targets and survives updates', () => {
    const rr = new RoundRobinBalancer();
    assert.equal(rr.next('s'), undefined);
    rr.update('s', [a, b, c]);
    assert.deepEqual([rr.next('s'), rr.next('s'), rr.next('s'), rr.next('s')], [a, b, c, a]);
    rr.update('s', [a]);
    assert.deepEqual([rr.next('s'), rr.next('s')], [a, a]);
    rr.remove('s');
    assert.equal(rr.next('s'), undefined);
  });

  it('keeps a client on its target under ClientIP affinity until idle past the timeout or the target goes', () => {
    const clock = new FakeClock(0);
    const rr = new RoundRobinBalancer(clock);
    rr.update('s', [a, b], 10);
    const first = rr.next('s', '1.1.1.1');
    assert.deepEqual([rr.next('s', '1.1.1.1'), rr.next('s', '1.1.1.1')], [first, first]);
    assert.notDeepEqual(rr.next('s', '2.2.2.2'), first);
    clock.set(11_000);
    rr.next('s', '3.3.3.3');
    assert.notDeepEqual(rr.next('s', '1.1.1.1'), undefined);
    rr.update('s', [c], 10);
    assert.deepEqual(rr.next('s', '1.1.1.1'), c);
  });
});

describe('usableEndpoints', () => {
  const ep = (ip: string, o: { ready: boolean; serving?: boolean; terminating?: boolean; nodeName?: string }) => ({ ip, port: 80, serving: o.serving ?? o.ready, terminating: o.terminating ?? false, ...o });
  it('prefers ready endpoints, falls back to serving terminating ones, honours Local', () => {
    const eps = [ep('1', { ready: true, nodeName: 'n1' }), ep('2', { ready: false }), ep('3', { ready: false, serving: true, terminating: true, nodeName: 'n2' })];
    assert.deepEqual(usableEndpoints(eps).map((e) => e.ip), ['1']);
    assert.deepEqual(usableEndpoints(eps, { nodeName: 'n2' }).map((e) => e.ip), ['3']);
    assert.deepEqual(usableEndpoints(eps, { nodeName: 'n3' }), []);
  });
});
