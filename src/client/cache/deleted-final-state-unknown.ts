/**
 * A delete whose final state was never seen: the object vanished between a
 * watch and a relist. `obj` is the last state the cache knew, possibly stale.
 */
export class DeletedFinalStateUnknown<T> {
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

/** The object of a delete notification, tombstone or not. */
export function finalState<T>(obj: T | DeletedFinalStateUnknown<T>): T {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}
