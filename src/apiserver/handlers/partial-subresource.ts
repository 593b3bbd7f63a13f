/** The subresources whose PUT and PATCH write part of the main object through the generic store. */
export function partialSubresource(sub: string): 'status' | 'approval' | 'ephemeralcontainers' | undefined {
  return sub === 'status' || sub === 'approval' || sub === 'ephemeralcontainers' ? sub : undefined;
}
