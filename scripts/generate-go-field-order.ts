/** Writes src/api/json/go-field-order.ts (see src/api/json/field-order-generator.ts). */
import { writeFileSync } from 'node:fs';
import { renderFieldOrder } from '../src/api/json/field-order-generator.js';

writeFileSync(new URL('../src/api/json/go-field-order.ts', import.meta.url), renderFieldOrder());
