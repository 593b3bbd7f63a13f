import type { APIService } from '../types/apiregistration/v1.js';

/** Upstream's SetDefaults_ServiceReference: an APIService's Service is reached on port 443 unless it says otherwise. */
export function setAPIServiceDefaults(svc: APIService): void {
  if (svc.spec?.service) svc.spec.service.port ??= 443;
}
