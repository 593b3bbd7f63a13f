import type { CPUStats, MemoryStats, Summary } from './summary.js';

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: string[];
}

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labels = (l: Record<string, string>) => `{${Object.entries(l).map(([k, v]) => `${k}="${escape(v)}"`).join(',')}}`;
const ms = (time: string) => Date.parse(time);

function cpuSample(name: string, l: Record<string, string>, cpu?: CPUStats): string[] {
  return cpu?.usageCoreNanoSeconds === undefined ? [] : [`${name}${Object.keys(l).length ? labels(l) : ''} ${cpu.usageCoreNanoSeconds / 1e9} ${ms(cpu.time)}`];
}

function memorySample(name: string, l: Record<string, string>, mem?: MemoryStats): string[] {
  return mem?.workingSetBytes === undefined ? [] : [`${name}${Object.keys(l).length ? labels(l) : ''} ${mem.workingSetBytes} ${ms(mem.time)}`];
}

/**
 * The kubelet's `/metrics/resource` in the Prometheus text format, with
 * upstream's metric names and help texts: cumulative CPU seconds and memory
 * working sets of the node, each pod and each container, timestamped with
 * when they were read. `scrapeError` is 1 when the runtime's figures could
 * not be read (the node's still are).
 */
export function renderResourceMetrics(summary: Summary, scrapeError: boolean): string {
  const families: Family[] = [
    { name: 'container_cpu_usage_seconds_total', help: '[STABLE] Cumulative cpu time consumed by the container in core-seconds', type: 'counter', samples: [] },
    { name: 'container_memory_working_set_bytes', help: '[STABLE] Current working set of the container in bytes', type: 'gauge', samples: [] },
    { name: 'container_start_time_seconds', help: '[STABLE] Start time of the container since unix epoch in seconds', type: 'gauge', samples: [] },
    { name: 'node_cpu_usage_seconds_total', help: '[STABLE] Cumulative cpu time consumed by the node in core-seconds', type: 'counter', samples: [] },
    { name: 'node_memory_working_set_bytes', help: '[STABLE] Current working set of the node in bytes', type: 'gauge', samples: [] },
    { name: 'pod_cpu_usage_seconds_total', help: '[STABLE] Cumulative cpu time consumed by the pod in core-seconds', type: 'counter', samples: [] },
    { name: 'pod_memory_working_set_bytes', help: '[STABLE] Current working set of the pod in bytes', type: 'gauge', samples: [] },
    { name: 'resource_scrape_error', help: '[STABLE] 1 if there was an error while getting container metrics, 0 otherwise', type: 'gauge', samples: [`resource_scrape_error ${scrapeError ? 1 : 0}`] },
    { name: 'scrape_error', help: '[ALPHA] 1 if there was an error while getting container metrics, 0 otherwise', type: 'gauge', samples: [`scrape_error ${scrapeError ? 1 : 0}`] },
  ];
  const [cCpu, cMem, cStart, nCpu, nMem, pCpu, pMem] = families;
  nCpu.samples.push(...cpuSample(nCpu.name, {}, summary.node.cpu));
  nMem.samples.push(...memorySample(nMem.name, {}, summary.node.memory));
  for (const p of summary.pods) {
    const pl = { namespace: p.podRef.namespace, pod: p.podRef.name };
    pCpu.samples.push(...cpuSample(pCpu.name, pl, p.cpu));
    pMem.samples.push(...memorySample(pMem.name, pl, p.memory));
    for (const c of p.containers) {
      const cl = { container: c.name, namespace: p.podRef.namespace, pod: p.podRef.name };
      cCpu.samples.push(...cpuSample(cCpu.name, cl, c.cpu));
      cMem.samples.push(...memorySample(cMem.name, cl, c.memory));
      const started = Date.parse(c.startTime);
      if (Number.isFinite(started)) cStart.samples.push(`${cStart.name}${labels(cl)} ${started / 1000}`);
    }
  }
  return families
    .filter((f) => f.samples.length > 0)
    .map((f) => `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${f.type}\n${f.samples.join('\n')}\n`)
    .join('');
}
