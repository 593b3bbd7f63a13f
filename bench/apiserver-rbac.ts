import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { clientFromKubeconfig } from '../test/e2e/raw-client.js';
import { compareCreates, type Comparison, type ServerSpec } from './interleaved.js';
import { benchPod } from './bench-pod.js';
import { fmt, printTable } from './stats.js';

const OPTS = {
  rounds: Number(process.env.BENCH_RBAC_ROUNDS ?? 6),
  sequential: Number(process.env.BENCH_RBAC_SEQ ?? 300),
  concurrent: Number(process.env.BENCH_RBAC_CONC ?? 1500),
};

const TOKEN = 'skiff-bench-0123456789abcdef';
const USER = 'bench-user';

/**
 * The pods are created by an ordinary user (a static token, not
 * system:masters, which every authorizer lets through at once), bound to a
 * Role that may create pods in `bench` through a RoleBinding: RBAC resolves
 * that user's ClusterRoleBindings and RoleBindings on every request.
 */
function spec(name: string, modes: string): ServerSpec {
  return {
    name,
    args: ['--authorization-mode', modes],
    async prepare(dataDir) {
      const file = join(dataDir, 'tokens.csv');
      await writeFile(file, `${TOKEN},${USER},1001,"bench-group"\n`);
      return ['--token-auth-file', file];
    },
    async setup(admin, server) {
      const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pod-creator', namespace: 'bench' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['create', 'get', 'list'] }] };
      const binding = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'pod-creator', namespace: 'bench' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-creator' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
      };
      for (const [path, body] of [['roles', role], ['rolebindings', binding]] as const) {
        const r = await admin.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/bench/${path}`, body);
        if (r.status !== 201) throw new Error(`${name}: create ${path}: ${r.status} ${r.body}`);
      }
      const user = clientFromKubeconfig(server.kubeconfig, 64, { bearerToken: TOKEN });
      // the authorizer learns of the binding through a watch: wait until the user may create
      const deadline = Date.now() + 30_000;
      for (let i = 0; ; i++) {
        const r = await user.request('POST', '/api/v1/namespaces/bench/pods', benchPod(`probe-${i}`));
        if (r.status === 201) break;
        if (r.status !== 403 || Date.now() > deadline) throw new Error(`${name}: the bench user cannot create pods: ${r.status} ${r.body}`);
        await new Promise((res) => setTimeout(res, 50));
      }
      return user;
    },
  };
}

/** Create throughput with RBAC deciding (`Node,RBAC`, the default) against `AlwaysAllow`, interleaved (see compareCreates). */
export function rbacCost(dir: string): Promise<Comparison> {
  const rbac = spec('rbac', 'Node,RBAC');
  rbac.verify = async (_admin, server) => {
    // the figure must be of RBAC deciding: the same user is refused where no binding allows it
    const user = clientFromKubeconfig(server.kubeconfig, 1, { bearerToken: TOKEN });
    try {
      const r = await user.request('POST', '/api/v1/namespaces/default/pods', benchPod('not-allowed'));
      if (r.status !== 403) throw new Error(`RBAC: the bench user created a pod outside its binding: ${r.status} ${r.body.slice(0, 300)}`);
    } finally {
      user.close();
    }
  };
  return compareCreates(dir, spec('always-allow', 'AlwaysAllow'), rbac, OPTS);
}

export function printRbac(t: Comparison): void {
  printTable('skiff API server: RBAC vs AlwaysAllow (a user bound by a RoleBinding creates pods; interleaved rounds)', t.rows, {
    figure: 'figure',
    api: 'Node,RBAC',
    storage: 'AlwaysAllow',
    ratio: 'RBAC/allow',
  });
}

export function rbacTarget(t: Comparison): string {
  return (
    `RBAC costs under 10% (32 clients ${fmt(100 * (t.concRatio - 1), 1)}% [rounds ${fmt(100 * (t.concSpread[0] - 1), 1)}% … ${fmt(100 * (t.concSpread[1] - 1), 1)}%], ` +
    `sequential ${fmt(100 * (t.seqRatio - 1), 1)}%, server CPU per create ${fmt(100 * (t.cpuRatio - 1), 1)}%)`
  );
}

/** `npm run bench -- apiserver rbac`: only this comparison. */
export async function printRbacCost(dir: string): Promise<void> {
  const t = await rbacCost(dir);
  printRbac(t);
  process.stdout.write(`\ntarget: ${rbacTarget(t)}\n`);
}
