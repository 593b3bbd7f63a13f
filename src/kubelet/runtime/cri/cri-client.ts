import * as grpc from '@grpc/grpc-js';
import { criCodec, type CriMessageName } from './cri-messages.js';

/** A CRI call failed; `code` is the gRPC status (5 = NotFound, 4 = DeadlineExceeded, 14 = Unavailable). */
export class CriError extends Error {
  override readonly name = 'CriError';
  constructor(readonly method: string, readonly code: number, readonly details: string) {
    super(`${method}: ${details}`);
  }

  get notFound(): boolean {
    return this.code === grpc.status.NOT_FOUND;
  }
}

type RuntimeMethod =
  | 'Version' | 'RunPodSandbox' | 'StopPodSandbox' | 'RemovePodSandbox' | 'PodSandboxStatus' | 'ListPodSandbox'
  | 'CreateContainer' | 'StartContainer' | 'StopContainer' | 'RemoveContainer' | 'ListContainers' | 'ContainerStatus'
  | 'ExecSync' | 'Exec' | 'Attach' | 'PortForward' | 'Status' | 'UpdateRuntimeConfig' | 'ReopenContainerLog' | 'ListContainerStats';
type ImageMethod = 'ListImages' | 'ImageStatus' | 'PullImage' | 'RemoveImage' | 'ImageFsInfo';

export type CriMessage = Record<string, unknown>;

/**
 * CRI's RuntimeService and ImageService (`runtime.v1`) over one gRPC
 * channel to a unix socket. Requests and responses are plain objects in the
 * shape of the messages in cri-messages.ts.
 */
export class CriClient {
  private readonly client: grpc.Client;

  /** `endpoint` is `unix:///path/to.sock` (or a bare path). */
  constructor(readonly endpoint: string) {
    const target = endpoint.startsWith('unix://') ? endpoint : `unix://${endpoint}`;
    this.client = new grpc.Client(target, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': 16 * 1024 * 1024,
    });
  }

  /** A RuntimeService call; `response` names a narrower message to decode the answer as (fields it leaves out are skipped). */
  runtime(method: RuntimeMethod, request: object, timeoutMs = 60_000, response?: CriMessageName): Promise<CriMessage> {
    return this.call('RuntimeService', method, request, timeoutMs, response);
  }

  image(method: ImageMethod, request: object, timeoutMs = 15 * 60_000): Promise<CriMessage> {
    return this.call('ImageService', method, request, timeoutMs);
  }

  close(): void {
    this.client.close();
  }

  private call(service: string, method: string, request: object, timeoutMs: number, response?: CriMessageName): Promise<CriMessage> {
    const req = criCodec(`${method}Request` as never);
    const res = criCodec(response ?? (`${method}Response` as never));
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        `/runtime.v1.${service}/${method}`,
        (v: object) => req.encode(v),
        (b: Buffer) => res.decode(b),
        request,
        new grpc.Metadata(),
        { deadline: Date.now() + timeoutMs },
        (err, value) => {
          if (err) reject(new CriError(method, err.code ?? grpc.status.UNKNOWN, err.details || err.message));
          else resolve(value as CriMessage);
        },
      );
    });
  }
}
