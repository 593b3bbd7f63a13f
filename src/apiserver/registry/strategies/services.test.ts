import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Service } from 'kubernetes-types/core/v1.js';
import { SERVICES } from '../../../api/resource-refs.js';
import { startTestApiServer } from '../../../testing/test-api-server.js';

test('a LoadBalancer Service with externalTrafficPolicy Local gets a healthCheckNodePort of its own; a taken one is 422; Cluster drops it', async () => {
  const api = await startTestApiServer();
  try {
    const services = api.client.resource<Service>(SERVICES).namespace('default');
    const local = await services.create({ metadata: { name: 'web' }, spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', selector: { app: 'web' }, ports: [{ port: 80 }] } });
    const hc = local.spec?.healthCheckNodePort;
    assert.ok(hc && hc >= 30000 && hc <= 32767, String(hc));
    assert.notEqual(hc, local.spec?.ports?.[0]?.nodePort);
    const cluster = await services.create({ metadata: { name: 'other' }, spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port: 80 }] } });
    assert.equal(cluster.spec?.healthCheckNodePort, undefined);
    await assert.rejects(
      services.create({ metadata: { name: 'clash' }, spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: hc, selector: { app: 'web' }, ports: [{ port: 80 }] } }),
      (e: Error & { code?: number }) => e.code === 422 && /spec\.healthCheckNodePort: Invalid value: \d+: provided port is already allocated/.test(e.message),
    );
    // switched to Cluster (the port left as it was): dropped rather than refused, as upstream
    const switched = await services.update({ ...local, spec: { ...local.spec, externalTrafficPolicy: 'Cluster' } });
    assert.equal(switched.spec?.healthCheckNodePort, undefined);
    // deleting releases it: a new Service may claim it
    await services.delete('web');
    const again = await services.create({ metadata: { name: 'again' }, spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: hc, selector: { app: 'web' }, ports: [{ port: 80 }] } });
    assert.equal(again.spec?.healthCheckNodePort, hc);
  } finally {
    await api.stop();
  }
});
