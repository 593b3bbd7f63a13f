import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../test/e2e/harness.js';
import { clientFromKubeconfig } from '../test/e2e/raw-client.js';
import { fmt, percentile, printTable, runConcurrent, type Row } from './stats.js';

const N_SEQ = Number(process.env.BENCH_SEQ ?? 400);
const N_CONC = Number(process.env.BENCH_CONC ?? 1600);
const N_WARM = 100;
const FIELDS = 30;

/** 30 fields: strings, integers and booleans, the first two used by the CEL rules. */
function specSchema() {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < FIELDS; i++) properties[`field${i}`] = i % 3 === 0 ? { type: 'integer', minimum: 0 } : i % 3 === 1 ? { type: 'string', maxLength: 64 } : { type: 'boolean' };
  return {
    type: 'object',
    properties,
    'x-kubernetes-validations': [
      { rule: 'self.field0 <= self.field3', message: 'field0 must not exceed field3' },
      { rule: "self.field1.startsWith('value-') && size(self.field1) < 64", message: 'field1 must start with value-' },
    ],
  };
}

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.bench.skiff.dev' },
  spec: {
    group: 'bench.skiff.dev',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema() } } } }],
  },
};

function spec(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < FIELDS; i++) out[`field${i}`] = i % 3 === 0 ? i : i % 3 === 1 ? `value-${i}-abcdefgh` : i % 2 === 0;
  return out;
}

const widget = (name: string) => ({ apiVersion: 'bench.skiff.dev/v1', kind: 'Widget', metadata: { name }, spec: spec() });
/** The same 30 values as ConfigMap data (strings), so both bodies are about the same size. */
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: Object.fromEntries(Object.entries(spec()).map(([k, v]) => [k, String(v)])) });

interface Figures {
  seqRate: number;
  seqP99: number;
  concRate: number;
  concP99: number;
}

/**
 * `npm run bench -- crd`: creating a custom resource (30-field structural
 * schema, two CEL rules) against creating a ConfigMap of the same size, on
 * the same API server: throughput and p99, sequential and with 32 clients.
 */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-bench-crd-'));
  const server = await startServer({ dataDir: join(dir, 'data'), command: 'apiserver', args: ['--compaction-interval', '0'] });
  const client = clientFromKubeconfig(server.kubeconfig);
  try {
    await client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    const crd = await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD);
    if (crd.status !== 201) throw new Error(`create CRD: ${crd.status} ${crd.body}`);
    const deadline = Date.now() + 30_000;
    while ((await client.request('GET', '/apis/bench.skiff.dev/v1/namespaces/bench/widgets')).status !== 200) {
      if (Date.now() > deadline) throw new Error('the CRD was not served within 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    // a CR that breaks a rule is refused: the rules really run
    const bad = await client.request('POST', '/apis/bench.skiff.dev/v1/namespaces/bench/widgets', { ...widget('bad'), spec: { ...spec(), field0: 99 } });
    if (bad.status !== 422 || !bad.body.includes('field0 must not exceed field3')) throw new Error(`expected the CEL rule to refuse: ${bad.status} ${bad.body}`);
    const measure = async (path: string, body: (name: string) => unknown, prefix: string, nSeq = N_SEQ, nConc = N_CONC): Promise<Figures> => {
      const create = async (name: string) => {
        const r = await client.request('POST', path, body(name));
        if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.body}`);
      };
      const t0 = performance.now();
      const seq = await runConcurrent(nSeq, 1, (i) => create(`${prefix}-seq-${i}`));
      const seqRate = nSeq / ((performance.now() - t0) / 1000);
      const t1 = performance.now();
      const conc = await runConcurrent(nConc, 32, (i) => create(`${prefix}-conc-${i}`));
      const concRate = nConc / ((performance.now() - t1) / 1000);
      return { seqRate, seqP99: percentile(seq, 99), concRate, concP99: percentile(conc, 99) };
    };
    // warm both paths before measuring
    await measure('/api/v1/namespaces/bench/configmaps', configMap, 'warm', N_WARM, N_WARM);
    await measure('/apis/bench.skiff.dev/v1/namespaces/bench/widgets', widget, 'warm', N_WARM, N_WARM);
    const cm = await measure('/api/v1/namespaces/bench/configmaps', configMap, 'cm');
    const cr = await measure('/apis/bench.skiff.dev/v1/namespaces/bench/widgets', widget, 'cr');
    const r = (a: number, b: number) => fmt(a / b, 2);
    const rows: Row[] = [
      { figure: `sequential creates/s (n=${N_SEQ})`, api: fmt(cr.seqRate, 0), storage: fmt(cm.seqRate, 0), ratio: r(cm.seqRate, cr.seqRate) },
      { figure: 'sequential create p99 ms', api: fmt(cr.seqP99, 2), storage: fmt(cm.seqP99, 2), ratio: r(cr.seqP99, cm.seqP99) },
      { figure: `32-client creates/s (n=${N_CONC})`, api: fmt(cr.concRate, 0), storage: fmt(cm.concRate, 0), ratio: r(cm.concRate, cr.concRate) },
      { figure: '32-client create p99 ms', api: fmt(cr.concP99, 2), storage: fmt(cm.concP99, 2), ratio: r(cr.concP99, cm.concP99) },
    ];
    printTable(`custom resource (${FIELDS}-field schema, 2 CEL rules) vs ConfigMap of the same size`, rows, { figure: 'figure', api: 'custom resource', storage: 'ConfigMap', ratio: 'cost ratio' });
    const worst = Math.max(cm.seqRate / cr.seqRate, cm.concRate / cr.concRate, cr.seqP99 / cm.seqP99, cr.concP99 / cm.concP99);
    process.stdout.write(`\ntarget: custom resources within 1.5x of ConfigMaps (worst ratio ${fmt(worst, 2)}x: ${worst <= 1.5 ? 'met' : 'missed'})\n`);
  } finally {
    client.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
