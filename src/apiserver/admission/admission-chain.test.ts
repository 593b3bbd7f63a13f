import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forbidden } from '../../machinery/api-error.js';
import type { AdmissionAttributes, AdmissionPlugin, Operation } from './admission.js';
import { AdmissionChain } from './admission-chain.js';
import { toTraceRecord } from '../../trace/journey.js';
import { configureTracing, spanStore } from '../../trace/tracing.js';
import { RequestTrace } from '../trace/request-trace.js';
import { WriteCauses } from '../trace/write-causes.js';

function attrs(operation: Operation): AdmissionAttributes {
  return {
    operation,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: 'default',
    name: 'web',
    object: { metadata: { name: 'web' } },
    dryRun: false,
    user: { name: 'jane', groups: [] },
  };
}

describe('AdmissionChain', () => {
  const calls: string[] = [];
  const plugin = (name: string, ops: Operation[], phases: { admit?: boolean; validate?: boolean; reject?: boolean }): AdmissionPlugin => ({
    name,
    handles: (op) => ops.includes(op),
    ...(phases.admit
      ? {
          admit: async (a: AdmissionAttributes) => {
            calls.push(`${name}.admit`);
            if (phases.reject) throw forbidden(`${name} says no`);
            a.object!.metadata!.labels = { ...a.object!.metadata!.labels, [name]: 'yes' };
          },
        }
      : {}),
    ...(phases.validate ? { validate: async () => void calls.push(`${name}.validate`) } : {}),
  });

  it('runs the mutating chain in order, then (separately) the validating chain, each only for handled operations', async () => {
    calls.length = 0;
    const chain = new AdmissionChain([
      plugin('a', ['CREATE', 'UPDATE'], { admit: true, validate: true }),
      plugin('b', ['DELETE'], { admit: true }),
      plugin('c', ['CREATE'], { validate: true }),
      plugin('d', ['CREATE'], { admit: true }),
    ]);
    assert.deepEqual(chain.mutating.map((p) => p.name), ['a', 'b', 'd']);
    assert.deepEqual(chain.validating.map((p) => p.name), ['a', 'c']);
    const create = attrs('CREATE');
    await chain.admit(create);
    await chain.validate(create);
    assert.deepEqual(calls, ['a.admit', 'd.admit', 'a.validate', 'c.validate']);
    assert.deepEqual(create.object?.metadata?.labels, { a: 'yes', d: 'yes' });
    calls.length = 0;
    await chain.admit(attrs('DELETE'));
    await chain.validate(attrs('DELETE'));
    assert.deepEqual(calls, ['b.admit']);
  });

  it('the first rejection ends the chain', async () => {
    calls.length = 0;
    const chain = new AdmissionChain([plugin('a', ['CREATE'], { admit: true, reject: true }), plugin('b', ['CREATE'], { admit: true })]);
    await assert.rejects(chain.admit(attrs('CREATE')), { message: 'a says no' });
    assert.deepEqual(calls, ['a.admit']);
  });

  it("a recorded request gets one stage per plugin run, with its phase, and the rejecting plugin's failed", async () => {
    await configureTracing({});
    calls.length = 0;
    const chain = new AdmissionChain([
      plugin('a', ['CREATE'], { admit: true, validate: true }),
      plugin('skipped', ['DELETE'], { admit: true }),
      plugin('no', ['CREATE'], { admit: true, reject: true }),
    ]);
    const trace = new RequestTrace('POST', '/api/v1/namespaces/default/pods', new WriteCauses(), undefined);
    const create = { ...attrs('CREATE'), trace };
    await chain.validate(create);
    await assert.rejects(chain.admit(create), { message: 'no says no' });
    trace.finish(403);
    const stages = toTraceRecord(trace.traceId, spanStore.trace(trace.traceId)!).spans.filter((s) => s.hop === 'admission');
    assert.deepEqual(
      stages.map((s) => [s.name, s.attributes['skiff.admission.phase'], s.status]),
      [
        ['admission a', 'validating', 'Unset'],
        ['admission a', 'mutating', 'Unset'],
        ['admission no', 'mutating', 'Error'],
      ],
    );
    assert.equal(stages[2].statusMessage, 'no says no');
  });
});
