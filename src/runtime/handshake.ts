// The start of an ACP connection: `initialize` with what Reins offers, the protocol version
// checked, `authenticate` when the user chose a method; and a start that failed, described
// with what the user needs (the command, its exit, its last stderr lines).
import type { InitializeRequest, InitializeResponse, ProtocolVersion } from '@agentclientprotocol/sdk';
import { ResponseError } from 'vscode-jsonrpc/node';
import { offeredVersion, PROTOCOL_VERSION, ProtocolVersionError } from '../acp/protocol';
import { describeExit, type AgentLaunch, type AgentProcess, type ExitInfo } from '../acp/agentProcess';
import { AgentExitedError, type AcpConnection } from '../acp/connection';
import { readV2Answer, v2InitializeRequest } from '../acp/v2Init';

/** An `authenticate` may open a browser and wait for the user: minutes, not seconds. */
export const AUTHENTICATE_TIMEOUT_MS = 5 * 60_000;

export class StartError extends Error {
  constructor(
    message: string,
    readonly launch: AgentLaunch,
    readonly exit: ExitInfo | undefined,
    readonly stderrTail: string[],
    /** The JSON-RPC error code of the request that failed (-32000: auth_required), and the
     *  sign-in methods `initialize` advertised, for the sign-in offer (auth/signIn.ts). */
    readonly failure: { code?: number; authMethods?: unknown } = {},
  ) {
    super(message);
    this.name = 'StartError';
  }
}

/**
 * `initialize`, then `authenticate` if the user chose a method. Version 1 is asked for; v2 only
 * when the agent refuses 1 with -32022 and offers 2 (acp/protocol.ts). Throws ProtocolVersionError
 * for an answer in a version Reins did not ask for. `got` receives the answer as soon as it is there, so
 * that a failed authenticate still offers the advertised methods.
 */
export async function handshake(
  conn: AcpConnection,
  options: { clientInfo?: { name: string; version: string }; authenticate?: string; timeoutMs: number; log?: (message: string) => void },
  got: (init: InitializeResponse) => void,
): Promise<InitializeResponse> {
  const params: InitializeRequest = {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {
      session: { configOptions: { boolean: {} } },
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      auth: { terminal: true },
      // Each mode explicit: ACP reads `{}` as neither (elicitation.mdx).
      elicitation: { form: {}, url: {} },
    },
    clientInfo: options.clientInfo ?? { name: 'reins', version: '0.0.0' },
  };
  let asked: ProtocolVersion = PROTOCOL_VERSION;
  const given = await conn.initialize(params, options.timeoutMs).catch((error: unknown) => {
    // Version 1 refused, and v2 offered instead (-32022 listing it): asked for once more.
    const offered = error instanceof ResponseError ? offeredVersion(error) : undefined;
    if (offered === undefined) throw error;
    options.log?.(`the agent refused ACP version ${PROTOCOL_VERSION} and offers ${offered}: initializing with ${offered}`);
    asked = offered;
    // v2's own shape: `info` and `capabilities` (v2Init.ts), not v1's role-named fields.
    return conn.initialize(v2InitializeRequest(params, offered) as unknown as InitializeRequest, options.timeoutMs);
  });
  const init = readV2Answer(given);
  got(init);
  // A version Reins did not ask for: the caller closes the connection and says so.
  if (init.protocolVersion !== asked) throw new ProtocolVersionError(init.protocolVersion, asked);
  if (init.protocolVersion >= 2) conn.dropClientSurface();
  // Sign-in the user chose for an `agent` method: between initialize and session/new (v2 renamed it auth/login).
  if (options.authenticate) await conn.authenticate({ methodId: options.authenticate }, AUTHENTICATE_TIMEOUT_MS, init.protocolVersion >= 2);
  return init;
}

export function describeStartFailure(launch: AgentLaunch, error: unknown, proc: AgentProcess): string {
  const command = [launch.command, ...launch.args].join(' ');
  if (error instanceof AgentExitedError) {
    return `\`${command}\` ${error.closed.exit ? describeExit(error.closed.exit) : error.closed.detail}`;
  }
  const tail = proc.currentStderrTail().slice(-8).join('\n');
  return `\`${command}\`: ${(error as Error)?.message ?? String(error)}${tail ? `; stderr:\n${tail}` : ''}`;
}
