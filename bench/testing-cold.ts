/**
 * One cold start for `npm run bench -- testing`, run as its own process:
 * import `skiff/testing` as a user's test file does, start the API server,
 * serve one request. Prints the phases as JSON (wall and process CPU time).
 */
const processStartMs = performance.now(); // node and tsx started before this line ran
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const { startTestApiServer } = await import('skiff/testing');
const t1 = performance.now();
const cpu1 = process.cpuUsage();
const api = await startTestApiServer();
await api.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).get('default');
const t2 = performance.now();
const cpu2 = process.cpuUsage();
await api.stop();

const ms = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user - a.user + b.system - a.system) / 1000;
process.stdout.write(
  `${JSON.stringify({ bootMs: processStartMs, importMs: t1 - t0, importCpuMs: ms(cpu0, cpu1), startMs: t2 - t1, startCpuMs: ms(cpu1, cpu2) })}\n`,
);
