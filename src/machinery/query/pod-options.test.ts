import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../api-error.js';
import {
  kubeletLogQuery,
  kubeletPortForwardQuery,
  kubeletStreamOptions,
  kubeletStreamQuery,
  parsePodLogOptions,
  parsePodStreamOptions,
  parsePortForwardPorts,
  validatePodLogOptions,
} from './pod-options.js';

const q = (s: string) => new URLSearchParams(s);

test('exec options as the Python client sends them reach the kubelet in its own form', () => {
  const opts = parsePodStreamOptions(q('command=sh&command=-c&command=echo%20hi&stderr=True&stdin=False&stdout=True&tty=False&container=main'));
  assert.deepEqual(opts, { stdin: false, stdout: true, stderr: true, tty: false, container: 'main', command: ['sh', '-c', 'echo hi'] });
  const kubelet = kubeletStreamQuery(opts, true);
  assert.equal(kubelet.toString(), 'output=1&error=1&command=sh&command=-c&command=echo+hi');
  assert.deepEqual(kubeletStreamOptions(kubelet), { stdin: false, stdout: true, stderr: true, tty: false, command: ['sh', '-c', 'echo hi'] });
  // attach carries no command; tty turns stderr off on the kubelet, as upstream
  assert.equal(kubeletStreamQuery(parsePodStreamOptions(q('stdin=1&tty=true&stderr=true&command=x')), false).toString(), 'input=1&error=1&tty=1');
  assert.equal(kubeletStreamOptions(q('input=1&error=1&tty=1')).stderr, false);
  // the kubelet itself only takes "1"
  assert.equal(kubeletStreamOptions(q('output=true')).stdout, false);
});

test('port-forward ports go to the kubelet as one comma-separated `port`', () => {
  assert.equal(kubeletPortForwardQuery(parsePortForwardPorts(q('ports=80&ports=8080,9090'))).toString(), 'port=80%2C8080%2C9090');
  assert.equal(kubeletPortForwardQuery([]).toString(), '');
});

test('log options: lenient booleans, integers, RFC 3339 times, then the kubelet query', () => {
  const opts = parsePodLogOptions(q('follow=True&timestamps=1&tailLines=10&limitBytes=100&sinceTime=2024-01-02T03:04:05.25Z&previous=false&pretty=x'));
  assert.equal(opts.follow, true);
  assert.equal(opts.previous, false);
  assert.equal(kubeletLogQuery(opts).toString(), 'follow=true&timestamps=true&sinceTime=2024-01-02T03%3A04%3A05Z&tailLines=10&limitBytes=100');
  assert.throws(() => parsePodLogOptions(q('sinceSeconds=x')), (e) => ApiError.is(e) && e.code === 400 && e.message === 'strconv.ParseInt: parsing "x": invalid syntax');
});

test('log options are validated as upstream (422 on PodLogOptions)', () => {
  const cases: [string, string | undefined][] = [
    ['tailLines=0&limitBytes=1&sinceSeconds=1', undefined],
    ['tailLines=-1', 'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'],
    ['limitBytes=0', 'PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
    ['sinceSeconds=0', 'PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
    ['sinceSeconds=5&sinceTime=2024-01-02T03:04:05Z', 'PodLogOptions "web" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'],
  ];
  for (const [query, message] of cases) {
    const run = () => validatePodLogOptions(parsePodLogOptions(q(query)), 'web');
    if (message === undefined) assert.doesNotThrow(run, query);
    else assert.throws(run, (e) => ApiError.is(e) && e.code === 422 && e.message === message, query);
  }
});
