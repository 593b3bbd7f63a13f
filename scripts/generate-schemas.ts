/**
 * Regenerates src/api/schema/generated/definitions.json from the
 * kubernetes-types declaration files. Run: `npx tsx scripts/generate-schemas.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateDefinitions, renderDefinitions } from '../src/api/schema/definitions-generator.js';

const target = fileURLToPath(new URL('../src/api/schema/generated/definitions.json', import.meta.url));
const defs = generateDefinitions();
writeFileSync(target, renderDefinitions(defs));
console.log(`wrote ${Object.keys(defs).length} definitions to ${target}`);
