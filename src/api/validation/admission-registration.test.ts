import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messagesFor, updateMessagesFor } from './test-support.js';
import { applyDefaults } from '../defaults/index.js';
import { info } from './test-support.js';

const GROUP = 'admissionregistration.k8s.io';

function hook(overrides: Record<string, unknown> = {}) {
  return {
    name: 'label.example.com',
    clientConfig: { service: { namespace: 'default', name: 'hooks', path: '/mutate' } },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...overrides,
  };
}

const mutating = (...webhooks: object[]) => ({ apiVersion: `${GROUP}/v1`, kind: 'MutatingWebhookConfiguration', metadata: { name: 'm' }, webhooks });
const validating = (...webhooks: object[]) => ({ apiVersion: `${GROUP}/v1`, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' }, webhooks });

describe('admissionregistration.k8s.io/v1 webhook configurations', () => {
  it("defaults as upstream (Fail, Equivalent, empty selectors, 10 s, scope '*', port 443, Never)", () => {
    const obj = mutating(hook());
    applyDefaults(obj, info(GROUP, 'MutatingWebhookConfiguration'));
    const h = obj.webhooks[0] as Record<string, unknown>;
    assert.equal(h.failurePolicy, 'Fail');
    assert.equal(h.matchPolicy, 'Equivalent');
    assert.deepEqual(h.namespaceSelector, {});
    assert.deepEqual(h.objectSelector, {});
    assert.equal(h.timeoutSeconds, 10);
    assert.equal(h.reinvocationPolicy, 'Never');
    assert.equal((h.rules as { scope: string }[])[0].scope, '*');
    assert.equal((h.clientConfig as { service: { port: number } }).service.port, 443);
  });

  it('accepts a well-formed configuration', () => {
    assert.deepEqual(messagesFor(mutating(hook()), GROUP), []);
    assert.deepEqual(messagesFor(validating(hook({ clientConfig: { url: 'https://127.0.0.1:9443/validate' } })), GROUP), []);
  });

  it("rejects with upstream's messages", () => {
    const msgs = messagesFor(
      validating(
        hook({ name: 'short', sideEffects: 'Some', timeoutSeconds: 31, admissionReviewVersions: ['v2'], clientConfig: { url: 'http://x/y?q=1' } }),
        hook({ rules: [{ operations: ['CREATE', '*'], apiGroups: [], apiVersions: ['v1'], resources: ['*', 'pods'] }], clientConfig: {} }),
        hook({ sideEffects: undefined }),
        hook(),
      ),
      GROUP,
    );
    assert.deepEqual(msgs, [
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme',
      'webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
      'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
      'webhooks[1].rules[0].operations: Invalid value: ["CREATE","*"]: if \'*\' is present, must not specify other operations',
      'webhooks[1].rules[0].apiGroups: Required value',
      "webhooks[1].rules[0].resources: Invalid value: [\"*\",\"pods\"]: if '*' is present, must not specify other resources without subresources",
      'webhooks[1].clientConfig: Required value: exactly one of url or service is required',
      'webhooks[2].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[2].name: Duplicate value: "label.example.com"',
      'webhooks[3].name: Duplicate value: "label.example.com"',
    ]);
  });

  it('an update keeps what the stored object already had (ratcheting)', () => {
    const old = validating(hook(), hook());
    assert.deepEqual(updateMessagesFor({ ...old, metadata: { name: 'v', resourceVersion: '1' } }, { ...old, metadata: { name: 'v', resourceVersion: '1' } }, GROUP), []);
  });
});
