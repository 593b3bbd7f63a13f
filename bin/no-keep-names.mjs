// A module loading hook chained after tsx's: tsx transforms TypeScript with esbuild's keepNames, which wraps every
// function and closure in `__name(fn, "name")`, an Object.defineProperty call each time one is created (a request's
// closures included: ~1-2% of the API server's CPU). tsx renames nothing (it only strips whitespace), so JavaScript's
// own name inference already gives every function the same name: the helper becomes the identity and the JIT drops it.
const HELPER = 'var __name=(target,value)=>__defProp(target,"name",{value,configurable:true});';
const IDENTITY = 'var __name=(target)=>target;';

/** The module's source without keepNames' cost (unchanged when tsx emitted no such helper). */
export function withoutKeepNames(source) {
  return source.startsWith('var __defProp=Object.defineProperty;') ? source.replace(HELPER, IDENTITY) : source;
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (loaded.format !== 'module' || loaded.source == null || !/\.[cm]?tsx?$/.test(new URL(url).pathname)) return loaded;
  const source = typeof loaded.source === 'string' ? loaded.source : Buffer.from(loaded.source).toString('utf8');
  return { ...loaded, source: withoutKeepNames(source) };
}
