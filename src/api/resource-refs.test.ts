import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as refs from './resource-refs.js';
import { RESOURCES } from './resources.js';

void test('every resource constant is an entry of the RESOURCES table, at its served version', () => {
  const constants = Object.entries(refs).filter(([name]) => /^[A-Z_0-9]+$/.test(name)) as [string, refs.ResourceRef][];
  const id = (r: { group: string; version: string; resource: string }) => `${r.group}/${r.version}/${r.resource}`;
  for (const [name, ref] of constants) assert.ok(RESOURCES.some((r) => id(r) === id(ref)), name);
  assert.equal(new Set(constants.map(([, ref]) => id(ref))).size, constants.length, 'no resource twice');
});

void test('a resource the table lacks fails at once', () => {
  assert.throws(() => refs.builtinResource('gadgets', 'example.com'), /gadgets.example.com is not a built-in resource/);
});
