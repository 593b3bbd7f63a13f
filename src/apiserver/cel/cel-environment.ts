import { Environment } from '@marcbachmann/cel-js';
import { registerFormat } from './library/format.js';
import { registerIP } from './library/ip.js';
import { registerLists } from './library/lists.js';
import { registerQuantity } from './library/quantity.js';
import { registerRegex } from './library/regex.js';
import { registerStrings } from './library/strings.js';
import { registerUrls } from './library/urls.js';

/** Variable name → CEL type (`dyn`, `optional<dyn>`, `map`, …). */
export type CelVariables = Readonly<Record<string, string>>;

let base: Environment | undefined;

/**
 * The base environment every Kubernetes CEL expression compiles in: the
 * standard library and macros, optional types, and Kubernetes' libraries
 * (lists, regex, URLs, quantities, IP/CIDR, formats, the strings extension).
 */
function baseEnvironment(): Environment {
  if (!base) {
    const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
    registerLists(env);
    registerRegex(env);
    registerUrls(env);
    registerQuantity(env);
    registerIP(env);
    registerFormat(env);
    registerStrings(env);
    base = env;
  }
  return base;
}

const environments = new Map<string, Environment>();

/** The base environment with these variables declared; one per distinct variable set. */
export function celEnvironment(variables: CelVariables): Environment {
  const id = Object.entries(variables)
    .map(([k, v]) => `${k}:${v}`)
    .sort()
    .join(',');
  let env = environments.get(id);
  if (!env) {
    env = baseEnvironment().clone();
    for (const [name, type] of Object.entries(variables)) env.registerVariable(name, type);
    environments.set(id, env);
  }
  return env;
}
