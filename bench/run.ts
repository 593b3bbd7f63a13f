/**
 * `npm run bench -- <name>`: runs one benchmark, which prints its figures and
 * ratios. Benchmarks are kept out of the tests: timings on a noisy 2-core
 * machine make flaky assertions.
 */
const BENCHES: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  apiserver: () => import('./apiserver.js'),
  scheduler: () => import('./scheduler.js'),
  controllers: () => import('./controllers.js'),
  informer: () => import('./informer.js'),
  watch: () => import('./watch.js'),
  podstartup: () => import('./podstartup.js'),
  testing: () => import('./testing.js'),
  crd: () => import('./crd.js'),
  dns: () => import('./dns.js'),
  proxy: () => import('./proxy.js'),
  scale: () => import('./scale.js'),
  overload: () => import('./overload.js'),
  nodefailure: () => import('./nodefailure.js'),
};

const [name, ...args] = process.argv.slice(2);
const load = name ? BENCHES[name] : undefined;
if (!load) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(BENCHES).join('|')}> [args]\n`);
  process.exit(2);
}
await (await load()).run(args);
