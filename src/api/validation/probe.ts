import type { LifecycleHandler, Probe } from 'kubernetes-types/core/v1.js';
import { child, forbidden, invalid, notSupported, required, validateNonnegativeField, type ErrorList } from './errors.js';
import { isValidPortName, isValidPortNum } from './name.js';

/** Upstream's ValidatePortNumOrName for an IntOrString port. */
export function validatePortNumOrName(port: unknown, path: string): ErrorList {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => invalid(path, port, m));
  if (typeof port === 'string') return isValidPortName(port).map((m) => invalid(path, port, m));
  return [invalid(path, port ?? null, 'unknown type')];
}

type Handler = Pick<Probe, 'exec' | 'httpGet' | 'tcpSocket' | 'grpc'> & Pick<LifecycleHandler, 'sleep'>;

/** Upstream's validateHandler: exactly one handler, each well formed. */
export function validateHandler(h: Handler, path: string): ErrorList {
  const errs: ErrorList = [];
  let count = 0;
  const one = (name: string): boolean => {
    if (count++ > 0) {
      errs.push(forbidden(child(path, name), 'may not specify more than 1 handler type'));
      return false;
    }
    return true;
  };
  if (h.exec && one('exec')) {
    if (!h.exec.command?.length) errs.push(required(child(path, 'exec', 'command')));
  }
  if (h.httpGet && one('httpGet')) {
    const p = child(path, 'httpGet');
    if (!h.httpGet.path) errs.push(required(child(p, 'path')));
    errs.push(...validatePortNumOrName(h.httpGet.port, child(p, 'port')));
    if (h.httpGet.scheme && !['HTTP', 'HTTPS'].includes(h.httpGet.scheme)) {
      errs.push(notSupported(child(p, 'scheme'), h.httpGet.scheme, ['HTTP', 'HTTPS']));
    }
  }
  if (h.tcpSocket && one('tcpSocket')) errs.push(...validatePortNumOrName(h.tcpSocket.port, child(path, 'tcpSocket', 'port')));
  if (h.grpc && one('grpc')) errs.push(...isValidPortNum(h.grpc.port).map((m) => invalid(child(path, 'grpc', 'port'), h.grpc?.port, m)));
  if (h.sleep && one('sleep')) {
    if (h.sleep.seconds < 0) errs.push(invalid(child(path, 'sleep', 'seconds'), h.sleep.seconds, 'must be greater than or equal to 0'));
  }
  if (count === 0) errs.push(required(path, 'must specify a handler type'));
  return errs;
}

export function validateProbe(probe: Probe | undefined, path: string): ErrorList {
  if (!probe) return [];
  const errs = validateHandler(probe, path);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const) {
    errs.push(...validateNonnegativeField(probe[f], child(path, f)));
  }
  if (probe.terminationGracePeriodSeconds !== undefined && probe.terminationGracePeriodSeconds <= 0) {
    errs.push(invalid(child(path, 'terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must be greater than 0'));
  }
  return errs;
}

/** Liveness and startup probes: as any probe, and successThreshold must be 1. */
export function validateSingleSuccessProbe(probe: Probe | undefined, path: string): ErrorList {
  if (!probe) return [];
  const errs = validateProbe(probe, path);
  if (probe.successThreshold !== undefined && probe.successThreshold !== 1) {
    errs.push(invalid(child(path, 'successThreshold'), probe.successThreshold, 'must be 1'));
  }
  return errs;
}
