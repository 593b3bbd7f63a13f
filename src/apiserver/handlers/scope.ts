import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceInfo } from '../../api/resource-info.js';
import { badRequest } from '../../machinery/api-error.js';
import type { Admission } from '../admission/admission.js';
import { int64Param } from '../../machinery/query/query-values.js';
import type { ApiRegistry } from '../api-registry.js';
import type { UserInfo } from '../authentication/user-info.js';
import type { Rendering } from '../http/respond.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { RequestInfo } from '../request-info.js';
import type { RequestTrace } from '../trace/request-trace.js';

/** Everything a resource handler needs for one request. */
export interface RequestScope {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  resource: ResourceInfo;
  store: RegistryStore;
  registry: ApiRegistry;
  /** Aborts when the client goes away or the server stops. */
  signal: AbortSignal;
  now: () => Date;
  /** The response representation, negotiated before anything is done (406 changes nothing). */
  rendering: Rendering;
  /** Who asks (after impersonation); what authorization decided on and admission sees. */
  user: UserInfo;
  /** The mutating and validating admission chains. */
  admission: Admission;
  /** The request's trace when it is recorded: stages and writes record into it. */
  trace?: RequestTrace;
}

/** `dryRun=All` (the only value upstream accepts). */
export function isDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  for (const v of values) {
    if (v !== 'All') throw badRequest(`Invalid dry run value: "${v}": supported values: "All"`);
  }
  return values.length > 0;
}

/** An int64 query parameter as upstream converts it (a 400 with Go's strconv error when it is not one). */
export function intParam(query: URLSearchParams, name: string): number | undefined {
  return int64Param(query, name);
}
