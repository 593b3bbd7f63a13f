/**
 * @peculiar/x509 resolves its algorithm providers through tsyringe, which
 * refuses to load without the Reflect metadata API. This installs the small
 * part of that API tsyringe uses, only when no polyfill is present.
 * (The `reflect-metadata` package would do the same, but is not a dependency.)
 */
type Target = object;
type MetadataMap = Map<unknown, unknown>;

interface ReflectMetadata {
  getMetadata?(key: unknown, target: Target, property?: string | symbol): unknown;
  getOwnMetadata?(key: unknown, target: Target, property?: string | symbol): unknown;
  defineMetadata?(key: unknown, value: unknown, target: Target, property?: string | symbol): void;
  metadata?(key: unknown, value: unknown): (target: Target, property?: string | symbol) => void;
}

const reflect = Reflect as typeof Reflect & ReflectMetadata;

if (!reflect.getMetadata) {
  const store = new WeakMap<Target, Map<string | symbol | undefined, MetadataMap>>();
  const own = (target: Target, property: string | symbol | undefined, create: boolean): MetadataMap | undefined => {
    let byProperty = store.get(target);
    if (!byProperty && create) store.set(target, (byProperty = new Map()));
    let map = byProperty?.get(property);
    if (!map && create && byProperty) byProperty.set(property, (map = new Map()));
    return map;
  };
  reflect.getOwnMetadata = (key, target, property) => own(target, property, false)?.get(key);
  reflect.getMetadata = (key, target, property) => {
    for (let t: Target | null = target; t; t = Object.getPrototypeOf(t) as Target | null) {
      const map = own(t, property, false);
      if (map?.has(key)) return map.get(key);
    }
    return undefined;
  };
  reflect.defineMetadata = (key, value, target, property) => {
    own(target, property, true)?.set(key, value);
  };
  reflect.metadata = (key, value) => (target, property) => reflect.defineMetadata?.(key, value, target, property);
}

export {};
