/**
 * The connect options of pods/log, pods/exec, pods/attach and
 * pods/portforward as the API server reads them (upstream's parameter codec:
 * lenient booleans, `command` repeated, `ports` repeated or comma-separated),
 * and the query the API server sends on to the kubelet (upstream's
 * streamParams and LogLocation: `input`/`output`/`error`/`tty` as "1",
 * `port` as one comma-separated list, log flags as "true").
 */
import type { FieldError } from '../../api/validation/field-error.js';
import { invalid } from '../invalid.js';
import { boolParam, int64Param, portsParam, stringParam, stringsParam, timeParam } from './query-values.js';

/** core/v1 PodLogOptions. */
export interface PodLogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  sinceSeconds?: number;
  sinceTime?: Date;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  insecureSkipTLSVerifyBackend: boolean;
}

export function parsePodLogOptions(q: URLSearchParams): PodLogOptions {
  return {
    container: stringParam(q, 'container') || undefined,
    follow: boolParam(q, 'follow'),
    previous: boolParam(q, 'previous'),
    sinceSeconds: int64Param(q, 'sinceSeconds'),
    sinceTime: timeParam(q, 'sinceTime'),
    timestamps: boolParam(q, 'timestamps'),
    tailLines: int64Param(q, 'tailLines'),
    limitBytes: int64Param(q, 'limitBytes'),
    insecureSkipTLSVerifyBackend: boolParam(q, 'insecureSkipTLSVerifyBackend'),
  };
}

/** upstream's ValidatePodLogOptions: a 422 on `PodLogOptions "<pod>"`. */
export function validatePodLogOptions(o: PodLogOptions, pod: string): void {
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) errs.push({ type: 'FieldValueInvalid', field: 'tailLines', badValue: o.tailLines, detail: 'must be greater than or equal to 0' });
  if (o.limitBytes !== undefined && o.limitBytes < 1) errs.push({ type: 'FieldValueInvalid', field: 'limitBytes', badValue: o.limitBytes, detail: 'must be greater than 0' });
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
    errs.push({ type: 'FieldValueForbidden', field: '', detail: 'at most one of `sinceTime` or `sinceSeconds` may be specified' });
  } else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) {
    errs.push({ type: 'FieldValueInvalid', field: 'sinceSeconds', badValue: o.sinceSeconds, detail: 'must be greater than 0' });
  }
  if (errs.length) throw invalid({ group: '', kind: 'PodLogOptions' }, pod, errs);
}

/** The kubelet's `/containerLogs` query for these options. */
export function kubeletLogQuery(o: PodLogOptions): URLSearchParams {
  const q = new URLSearchParams();
  if (o.follow) q.set('follow', 'true');
  if (o.previous) q.set('previous', 'true');
  if (o.timestamps) q.set('timestamps', 'true');
  if (o.sinceSeconds !== undefined) q.set('sinceSeconds', String(o.sinceSeconds));
  if (o.sinceTime) q.set('sinceTime', o.sinceTime.toISOString().replace(/\.\d+Z$/, 'Z'));
  if (o.tailLines !== undefined) q.set('tailLines', String(o.tailLines));
  if (o.limitBytes !== undefined) q.set('limitBytes', String(o.limitBytes));
  return q;
}

/** core/v1 PodExecOptions and PodAttachOptions (attach has no command). */
export interface PodStreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  container?: string;
  command: string[];
}

export function parsePodStreamOptions(q: URLSearchParams): PodStreamOptions {
  return {
    stdin: boolParam(q, 'stdin'),
    stdout: boolParam(q, 'stdout'),
    stderr: boolParam(q, 'stderr'),
    tty: boolParam(q, 'tty'),
    container: stringParam(q, 'container') || undefined,
    command: stringsParam(q, 'command'),
  };
}

/** The kubelet's `/exec` and `/attach` query: its own parameter names, flags as "1". */
export function kubeletStreamQuery(o: PodStreamOptions, withCommand: boolean): URLSearchParams {
  const q = new URLSearchParams();
  if (o.stdin) q.append('input', '1');
  if (o.stdout) q.append('output', '1');
  if (o.stderr) q.append('error', '1');
  if (o.tty) q.append('tty', '1');
  if (withCommand) for (const c of o.command) q.append('command', c);
  return q;
}

/** core/v1 PodPortForwardOptions. */
export function parsePortForwardPorts(q: URLSearchParams): number[] {
  return portsParam(q, 'ports');
}

/** The kubelet's `/portForward` query: `port` as one comma-separated list. */
export function kubeletPortForwardQuery(ports: readonly number[]): URLSearchParams {
  const q = new URLSearchParams();
  if (ports.length) q.set('port', ports.join(','));
  return q;
}

/** What the kubelet reads from `/exec` and `/attach` (upstream's remotecommand NewOptions: only "1" is true). */
export function kubeletStreamOptions(q: URLSearchParams): { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean; command: string[] } {
  const one = (k: string) => q.get(k) === '1';
  const tty = one('tty');
  return { stdin: one('input'), stdout: one('output'), stderr: one('error') && !tty, tty, command: q.getAll('command') };
}
