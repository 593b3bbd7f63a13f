import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isScalarType } from '../message-schema.js';
import { SPECIAL_TYPES } from '../special-types.js';
import { ALL_MESSAGES, KIND_MESSAGES } from './all-messages.js';

void describe('schema tables', () => {
  void it('every field refers to a scalar, a special type or a known message', () => {
    const missing: string[] = [];
    for (const [name, schema] of Object.entries(ALL_MESSAGES)) {
      for (const [n, f] of schema) {
        if (!isScalarType(f.type) && !SPECIAL_TYPES[f.type] && !ALL_MESSAGES[f.type]) missing.push(`${name}.${n} → ${f.type}`);
        if (f.inline && (f.repeated || f.map || isScalarType(f.type))) missing.push(`${name}.${n}: only a message can be inline`);
      }
    }
    assert.deepEqual(missing, []);
  });

  void it('every kind maps to a known message with metadata in field 1', () => {
    for (const [kind, type] of Object.entries(KIND_MESSAGES)) {
      const schema = ALL_MESSAGES[type];
      assert.ok(schema, `${kind} → ${type}`);
      if (type !== 'DeleteOptions') assert.equal(schema.get(1)?.type, 'ObjectMeta', kind);
    }
  });
});
