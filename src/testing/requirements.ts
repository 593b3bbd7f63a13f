import { spawnSync } from 'node:child_process';

/**
 * Tests that need root or a system tool (containerd, iptables, etcd,
 * Chromium…) may skip on a developer's laptop, never in CI: `.ci/run` sets
 * SKIFF_REQUIRE_ALL=1 and provides every tool, so a missing one there is a
 * failure, not a silent skip.
 */
export function skipUnless(missing: string | undefined): { skip?: string } {
  if (missing === undefined) return {};
  if (process.env.SKIFF_REQUIRE_ALL === '1') {
    throw new Error(`SKIFF_REQUIRE_ALL is set but this test cannot run: ${missing}`);
  }
  return { skip: missing };
}

/** Why the tests cannot act as root, or undefined when they can. */
export function missingRoot(): string | undefined {
  return process.getuid?.() === 0 ? undefined : 'needs root';
}

/** Why `command` cannot be run, or undefined when it answers `args`. */
export function missingCommand(command: string, args: string[] = ['--version'], hint = ''): string | undefined {
  const probe = spawnSync(command, args, { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) return `${command} is not installed${hint ? ` (${hint})` : ''}`;
  return undefined;
}

/** The first reason among several, so one test can need root and a tool. */
export function firstMissing(...reasons: (string | undefined)[]): string | undefined {
  return reasons.find((r) => r !== undefined);
}
