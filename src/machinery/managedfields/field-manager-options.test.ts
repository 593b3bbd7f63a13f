import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { managerFromUserAgent, managerOrUserAgent, validateFieldManagerOptions } from './field-manager-options.js';

describe('field manager options', () => {
  it('derives the manager from the User-Agent prefix', () => {
    assert.equal(managerFromUserAgent('kubectl/v1.32.0 (linux/amd64) kubernetes/abc'), 'kubectl');
    assert.equal(managerFromUserAgent('my\u0007tool/1'), 'mytool');
    assert.equal(managerFromUserAgent('x'.repeat(300)).length, 128);
    assert.equal(managerFromUserAgent(undefined), '');
    assert.equal(managerOrUserAgent('kubectl-create', 'kubectl/v1.32.0'), 'kubectl-create');
  });

  it('requires a manager for apply and forbids force elsewhere, as upstream words it', () => {
    const missing = validateFieldManagerOptions({ optionsKind: 'PatchOptions', isApply: true });
    assert.equal(missing?.code, 422);
    assert.equal(missing?.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    assert.deepEqual(missing?.details?.causes, [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }]);
    const force = validateFieldManagerOptions({ optionsKind: 'PatchOptions', forceGiven: true, fieldManager: 'x' });
    assert.equal(force?.message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    assert.equal(validateFieldManagerOptions({ optionsKind: 'PatchOptions', isApply: true, forceGiven: true, fieldManager: 'kubectl' }), undefined);
  });

  it('bounds the manager name and its characters', () => {
    assert.match(validateFieldManagerOptions({ optionsKind: 'CreateOptions', fieldManager: 'x'.repeat(129) })?.message ?? '', /^CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes$/);
    assert.match(validateFieldManagerOptions({ optionsKind: 'UpdateOptions', fieldManager: 'a\tb' })?.message ?? '', /invalid character U\+0009 \(at position 1\)/);
    assert.equal(validateFieldManagerOptions({ optionsKind: 'UpdateOptions', fieldManager: 'kube controller' }), undefined);
  });
});
