import { readdir } from 'node:fs/promises';
import type { ControllerDescriptor } from './controller-descriptor.js';

/** A folder that has an index module but no `controller` export. */
export class ControllerLoadError extends Error {
  override readonly name = 'ControllerLoadError';
  constructor(
    readonly folder: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Every controller in `dir` (default: this folder): each subfolder with an
 * `index.ts` (or `index.js` once compiled) exporting `controller`. Sorted by name.
 * Folders without that export (shared helpers) are skipped.
 */
export async function loadControllers(dir: URL = new URL('./', import.meta.url)): Promise<ControllerDescriptor[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const out: ControllerDescriptor[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const files = await readdir(new URL(`${entry.name}/`, dir));
    const index = files.find((f) => f === 'index.ts' || f === 'index.js');
    if (!index) continue;
    const mod = (await import(new URL(`${entry.name}/${index}`, dir).href)) as { controller?: ControllerDescriptor };
    // A folder of shared helpers may have an index without a controller.
    if (mod.controller === undefined) continue;
    if (typeof mod.controller.start !== 'function' || typeof mod.controller.name !== 'string') {
      throw new ControllerLoadError(entry.name, `src/controllers/${entry.name}/${index} does not export a ControllerDescriptor as "controller"`);
    }
    out.push(mod.controller);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
