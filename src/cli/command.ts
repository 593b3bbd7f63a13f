import type { Logger } from '../machinery/logger.js';
import type { FlagSpec } from './flags.js';

/** What every component command gets besides its flags. */
export interface CommandContext {
  logger: Logger;
  /** Aborts on SIGINT/SIGTERM (or when `skiff server` stops); run() should then return. */
  signal: AbortSignal;
  /**
   * Inside `skiff server`: the admin kubeconfig and data dir of the API
   * server started in the same process, and component credentials (each
   * component runs as its upstream identity, not as the admin). Standalone:
   * from flags.
   */
  server?: {
    kubeconfig: string;
    dataDir: string;
    /** The kube-dns Service's address when skiff server runs the DNS component (the kubelet's --cluster-dns). */
    clusterDNS?: string;
    /** A kubeconfig for a component's own identity (user, groups), issued by the cluster CA; `name` names its file. */
    credentials(name: string, user: string, groups?: readonly string[]): Promise<string>;
  };
}

export type FlagValues = Record<string, string | boolean | string[] | undefined>;

/**
 * A `skiff <name>` subcommand. Each file in `src/cli/commands/` exports one
 * as `command`; `skiff server` runs those with a `serverOrder`, in that order,
 * after the API server, each talking to it over HTTP like any other client.
 */
export interface ComponentCommand {
  name: string;
  summary: string;
  flags: FlagSpec;
  /** Takes positional arguments (in `flags._`), e.g. `import FILE…`. */
  positionals?: boolean;
  /**
   * Names some flags take on `skiff server`'s command line, where a bare name
   * would be unclear (e.g. simulate's `--nodes` is `--simulated-nodes` there).
   */
  serverFlags?: Record<string, string>;
  /** Position in `skiff server` (lower first); absent: not part of it. */
  serverOrder?: number;
  /** Runs until ctx.signal aborts, then cleans up and resolves. */
  run(flags: FlagValues, ctx: CommandContext): Promise<void>;
}
