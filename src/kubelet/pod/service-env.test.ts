import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Service, ServicePort } from 'kubernetes-types/core/v1.js';
import { serviceEnv } from './service-env.js';
import { containerEnv } from './container-env.js';

function svc(namespace: string, name: string, clusterIP: string, ports: ServicePort[]): Service {
  return { metadata: { namespace, name }, spec: { clusterIP, ports } };
}

const kubernetes = svc('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }]);
const web = svc('shop', 'web-front', '10.96.0.20', [
  { port: 80, protocol: 'TCP' },
  { name: 'metrics', port: 9090, protocol: 'TCP' },
  { name: 'dns', port: 53, protocol: 'UDP' },
]);
const headless = svc('shop', 'db', 'None', [{ port: 5432 }]);
const other = svc('elsewhere', 'api', '10.96.0.30', [{ port: 8080 }]);

describe('service environment variables (upstream kubelet envvars)', () => {
  it('gives the kubernetes Service as upstream names its variables', () => {
    assert.deepEqual(serviceEnv([kubernetes], 'app'), {
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
      KUBERNETES_SERVICE_PORT_HTTPS: '443',
      KUBERNETES_PORT: 'tcp://10.96.0.1:443',
      KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443',
      KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_PORT: '443',
      KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
    });
  });

  it('adds every Service of the pod namespace with a cluster IP, none from other namespaces', () => {
    const env = serviceEnv([kubernetes, web, headless, other], 'shop');
    assert.equal(env.WEB_FRONT_SERVICE_HOST, '10.96.0.20');
    assert.equal(env.WEB_FRONT_SERVICE_PORT, '80');
    assert.equal(env.WEB_FRONT_SERVICE_PORT_METRICS, '9090');
    assert.equal(env.WEB_FRONT_PORT, 'tcp://10.96.0.20:80');
    assert.equal(env.WEB_FRONT_PORT_53_UDP, 'udp://10.96.0.20:53');
    assert.equal(env.WEB_FRONT_PORT_53_UDP_PROTO, 'udp');
    assert.equal(env.WEB_FRONT_PORT_9090_TCP_ADDR, '10.96.0.20');
    assert.equal(env.KUBERNETES_SERVICE_HOST, '10.96.0.1');
    assert.ok(!Object.keys(env).some((k) => k.startsWith('DB_') || k.startsWith('API_')));
  });

  it('keeps only the master services when enableServiceLinks is false', () => {
    const env = serviceEnv([kubernetes, web], 'shop', false);
    assert.equal(env.KUBERNETES_SERVICE_HOST, '10.96.0.1');
    assert.equal(env.WEB_FRONT_SERVICE_HOST, undefined);
  });

  it('brackets an IPv6 cluster IP in URLs', () => {
    const env = serviceEnv([svc('default', 'kubernetes', 'fd00::1', [{ port: 443 }])], 'x');
    assert.equal(env.KUBERNETES_PORT, 'tcp://[fd00::1]:443');
    assert.equal(env.KUBERNETES_PORT_443_TCP_ADDR, 'fd00::1');
  });

  it('lets the container env win and uses the service env in $(VAR) expansion', () => {
    const env = containerEnv(
      { name: 'c', env: [{ name: 'KUBERNETES_SERVICE_HOST', value: '127.0.0.1' }, { name: 'URL', value: 'https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)' }] },
      { pod: { metadata: { namespace: 'app' } }, allocatable: {}, objects: { configMap: () => undefined, secret: () => undefined, serviceEnv: () => serviceEnv([kubernetes], 'app') } },
    );
    assert.equal(env.KUBERNETES_SERVICE_HOST, '127.0.0.1');
    assert.equal(env.KUBERNETES_SERVICE_PORT, '443');
    assert.equal(env.URL, 'https://127.0.0.1:443');
    assert.equal(env.KUBERNETES_PORT_443_TCP_PORT, '443');
  });
});
