import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';

/** A bad `--admission-control-config-file` (or a file it names): the server refuses to start. */
export class AdmissionConfigError extends Error {
  override readonly name = 'AdmissionConfigError';
}

const API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1'];

interface PluginEntry {
  name?: unknown;
  path?: unknown;
  configuration?: unknown;
}

/**
 * Upstream's AdmissionConfiguration (`apiserver.config.k8s.io/v1`, also
 * `apiserver.k8s.io/v1alpha1`): per plugin name, its configuration inline
 * (`configuration`) or in a file (`path`, relative to this file). Returns
 * each plugin's configuration object.
 */
export function loadAdmissionConfiguration(file: string): Map<string, unknown> {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new AdmissionConfigError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const obj = (doc ?? {}) as { apiVersion?: unknown; kind?: unknown; plugins?: unknown };
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new AdmissionConfigError(`${file}: not an AdmissionConfiguration object`);
  if (obj.kind !== 'AdmissionConfiguration' || !API_VERSIONS.includes(String(obj.apiVersion))) {
    throw new AdmissionConfigError(`${file}: want kind AdmissionConfiguration in ${API_VERSIONS.join(' or ')}, got ${String(obj.apiVersion)}, Kind=${String(obj.kind)}`);
  }
  if (obj.plugins !== undefined && !Array.isArray(obj.plugins)) throw new AdmissionConfigError(`${file}: plugins must be a list`);
  const out = new Map<string, unknown>();
  for (const [i, raw] of ((obj.plugins ?? []) as PluginEntry[]).entries()) {
    const name = raw?.name;
    if (typeof name !== 'string' || !name) throw new AdmissionConfigError(`${file}: plugins[${i}].name is required`);
    if (out.has(name)) throw new AdmissionConfigError(`${file}: plugins[${i}]: duplicate plugin ${JSON.stringify(name)}`);
    if (raw.path !== undefined && raw.path !== '') {
      const path = String(raw.path);
      const full = isAbsolute(path) ? path : resolve(dirname(resolve(file)), path);
      try {
        out.set(name, parse(readFileSync(full, 'utf8')));
      } catch (err) {
        throw new AdmissionConfigError(`${file}: plugin ${name}: cannot read ${full}: ${(err as Error).message}`);
      }
    } else {
      out.set(name, raw.configuration);
    }
  }
  return out;
}
