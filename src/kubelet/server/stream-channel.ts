/**
 * The Kubernetes stream-channel protocol over WebSocket (`v4.channel.k8s.io`,
 * `v5.channel.k8s.io`): each binary message starts with its channel number.
 * v5 adds one control message, `255, <channel>`, that half-closes a channel
 * (how a client signals the end of stdin).
 */
export const Channel = {
  Stdin: 0,
  Stdout: 1,
  Stderr: 2,
  Error: 3,
  Resize: 4,
  Close: 255,
} as const;

export const V5 = 'v5.channel.k8s.io';
export const V4 = 'v4.channel.k8s.io';
/** v4 with each message sent as text: the channel digit, then the data in base64. */
export const V4_BASE64 = 'v4.base64.channel.k8s.io';
/** Preference order when several are offered is the client's; these are the ones we speak. */
export const REMOTE_COMMAND_PROTOCOLS: readonly string[] = [V5, V4, V4_BASE64];

export type ChannelMessage = { channel: number; data: Buffer } | { close: number };

export function encodeChannel(channel: number, data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([Buffer.from([channel]), body]);
}

/** Splits one message; undefined for an empty one. The close signal only means something in v5. */
export function decodeChannel(message: Buffer, protocol: string): ChannelMessage | undefined {
  if (message.length === 0) return undefined;
  if (message[0] === Channel.Close && protocol === V5 && message.length >= 2) return { close: message[1] };
  return { channel: message[0], data: message.subarray(1) };
}

export interface TerminalSize {
  width: number;
  height: number;
}

/** The resize channel carries `{"Width":w,"Height":h}` (Go field names). */
export function parseTerminalSize(data: Buffer): TerminalSize | undefined {
  try {
    const v = JSON.parse(data.toString()) as { Width?: unknown; Height?: unknown };
    if (typeof v.Width === 'number' && typeof v.Height === 'number' && v.Width >= 0 && v.Height >= 0) return { width: v.Width, height: v.Height };
  } catch {
    // a malformed size is ignored, as upstream does
  }
  return undefined;
}

/**
 * The metav1.Status written on the error channel when the command ends:
 * Success, or NonZeroExitCode with the code as an `ExitCode` cause (what
 * kubectl turns into `command terminated with exit code N` and its own exit
 * status).
 */
export function exitStatus(exitCode: number, command: readonly string[] = []): Record<string, unknown> {
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

/** The Status for a session that could not run at all. */
export function failureStatus(message: string): Record<string, unknown> {
  return { metadata: {}, status: 'Failure', message, reason: 'InternalError', code: 500 };
}
