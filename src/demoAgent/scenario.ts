// What a scenario may say, how it is found on the command line, and its parsing (the checks that
// name the offending place, "prompts[0].steps[2]: …", are in scenarioCheck.ts).
import { readFileSync } from 'node:fs';
import type { SessionSetup } from './sessionConfig';
import type { AuthOptions } from './auth';
import type { SessionsOptions } from './sessions';
import type { Fault } from './faults';
import { checkScenario } from './scenarioCheck';
import type { RpcError } from './peer';

export interface Scenario {
  name?: string;
  init?: {
    delayMs?: number;
    /** Never answer `initialize`. */
    never?: boolean;
    /** Exit with this code when `initialize` arrives, before answering. */
    exitCode?: number;
    /** Lines written to stderr when `initialize` arrives. */
    stderr?: string[];
    /** Answer this protocol version instead of 1. */
    protocolVersion?: number;
    /** The versions it speaks (ACP v2's negotiation): a request for another is refused with -32022
     *  listing these; one of these is answered as asked. Version 2 brings v2's turn lifecycle. */
    supported?: number[];
    /** Replace agentCapabilities fields (promptCapabilities, mcpCapabilities, …). */
    capabilities?: Record<string, unknown>;
    /** Report this `agentInfo` (name, title, version) instead of the scripted agent's: to pose as
     *  a known agent, or to report a hostile name (the hostile smoke). */
    agentInfo?: { name: string; title?: string; version?: string };
  };
  /** Modes and config options in session/new's answer; updates sent before it (sessionConfig.ts). */
  session?: SessionSetup;
  startup?: {
    /** Exit with this code at once (after stderrLines and garbageBefore). */
    exitImmediately?: number;
    stderrLines?: string[];
    /** Non-JSON lines written on stdout before anything else. */
    garbageBefore?: string[];
    /** Keep running when stdin closes (codex-acp, claude-agent-acp). */
    stayOnStdinClose?: boolean;
    /** Record SIGTERM and keep running: only SIGKILL ends the process. */
    ignoreSigterm?: boolean;
    /** A process of the agent's own started at each session/new and kept for the process's
     *  life, as claude-agent-acp starts one Claude Code process per session. */
    sessionProcess?: string;
  };
  /** goose-style active runs: reserve, announce, reject a second prompt, null before the answer. */
  goose?: boolean;
  /** ACP v2's `state_update` (running at a turn's start, idle with its stop reason at its end) under v1 too. */
  stateUpdates?: boolean;
  /** Takes text into the running turn (steer.ts): `acp` advertises `_meta.steering.supported` and
   *  answers `_session/steering`; `goose` answers `_goose/unstable/session/steer` (with `goose`). */
  steering?: 'acp' | 'goose';
  /**
   * claude-agent-acp 0.23.1 after a cancel: the next prompt is answered at once with `end_turn`,
   * no content and a zero `usage`, while its work (the behaviour's `spawn` steps) runs on unseen
   * (a `spawn` with `wait` ends before that answer: unseen work that has changed a file).
   */
  oneBehindAfterCancel?: boolean;
  /** A file that keeps the count of prompts across this agent's processes, so that a restarted
   *  agent goes on with the next behaviour (as a real agent's reopened session goes on). */
  promptCountFile?: string;
  /** session/load, resume, list, close, delete and what they remember (sessions.ts). */
  sessions?: SessionsOptions;
  /** authMethods, auth_required until signed in, `authenticate`, `--login` (auth.ts). */
  auth?: AuthOptions;
  /** Faults at the start (faults.ts); in a turn they are steps, at a cancel an `onCancel`. */
  fault?: {
    /** Killed or hung when `initialize` arrives, before answering. */
    initialize?: Fault;
    /** Killed or hung when `session/new` arrives, before answering. */
    sessionNew?: Fault;
    /** A file: the fault fires only while it does not exist (once per agent); later processes answer every prompt at once. */
    once?: string;
    /** A file: the fault fires only once it exists (the agent starts healthy until the test arms it). */
    armed?: string;
  };
  /** Behaviour of prompt #0, #1, …; the last one repeats. */
  prompts: Behaviour[];
}

/** How a turn ends once a cancel has been accepted, and after how long. */
export interface CancelAnswer {
  delayMs?: number;
  /** A uniformly random delay in [lo, hi] ms. */
  delayRangeMs?: [number, number];
  /** `context-canceled`: -32000 "context canceled", as agents written in Go answer a cancelled prompt. */
  answer?: 'cancelled' | 'end_turn' | 'error' | 'context-canceled';
}

/** `kill`, `hang`: the fault (faults.ts) when the cancel arrives. */
export type OnCancel = 'quick' | 'never' | 'end_turn' | 'error' | 'context-canceled' | 'exit' | 'kill' | 'hang' | CancelAnswer;

export interface Behaviour {
  steps: Step[];
  stopReason?: string;
  onCancel?: OnCancel;
  dropEarlyCancelMs?: number;
  killToolsOnCancel?: boolean;
  /** With state updates: `state_update` idle (cancelled) as soon as a cancel is accepted, before the unwinding and the answer. */
  idleOnCancel?: boolean;
  /** With state updates: the turn's idle sent once more, this many ms after the turn ended (a late snapshot). */
  repeatIdleMs?: number;
  /** After a cancelled turn's answer, the agent still talks about it (a stopped turn's late updates). */
  afterCancel?: AfterCancel;
  /** session/update payloads sent when a cancel is accepted, before the answer (or v2's idle):
   *  what the agent says it cancelled (ACP v2's `cancelled` tool calls and plan entries). */
  cancelUpdates?: unknown[];
  /** When a cancel is accepted, `$/cancel_request` for every request this turn made to the client,
   *  answered or not, as ACP v2's cascading cancel (cancellation.mdx) does without looking. */
  withdrawOnCancel?: boolean;
}

/** session/update payloads about a cancelled turn, sent after its answer. */
interface AfterCancel {
  /** Sent this many ms after the answer (default 0). */
  delayMs?: number;
  updates?: unknown[];
  /** Sent when the session's next prompt arrives, before that turn begins. */
  atNextPrompt?: unknown[];
}

interface PermissionStep {
  toolCallId: string;
  title: string;
  kind?: string;
  options?: { optionId: string; name: string; kind: string }[];
  /** Stop waiting for the answer when a cancel is accepted (default: wait for it, as gemini does). */
  abortOnCancel?: boolean;
  /** Withdraw the request with `$/cancel_request` after this many ms (the answer is recorded). */
  withdrawAfterMs?: number;
  /** Ask and go on to the next step at once (requests at the same time, as ACP v2's example has);
   *  the answer is still recorded. */
  background?: boolean;
  /** ACP v2 only: the question's supporting text, and a command subject (`${cwd}` filled in) instead of the tool call. */
  description?: string;
  command?: { command: string; cwd: string };
}

/**
 * elicitation/create for the turn's session (`${sessionId}` filled in `params`, which are sent
 * as written, so a scenario can send what the spec forbids); the answer is recorded
 * (`elicitation-answered`). Waits past a cancel unless `abortOnCancel`, like a permission.
 */
interface ElicitStep {
  params: Record<string, unknown>;
  abortOnCancel?: boolean;
  /** Withdraw the request with `$/cancel_request` after this many ms (the answer is recorded). */
  withdrawAfterMs?: number;
  /** After an `accept` of URL mode, send elicitation/complete for its elicitationId this many ms later. */
  completeAfterMs?: number;
}

export type Step =
  | { text: string; chunk?: number; intervalMs?: number }
  | { thought: string; chunk?: number; intervalMs?: number }
  /**
   * `count` agent_message_chunks "c0 ", "c1 ", … at `perSecond` (sent in bursts, a timer tick
   * apart), a paragraph break after every `paragraph` of them: the streaming benchmark's flood.
   */
  | { flood: { count: number; perSecond: number; paragraph?: number } }
  | { tool: { id: string; title: string; kind?: string; status?: string; rawInput?: unknown } }
  | { toolUpdate: { id: string; status?: string; text?: string } }
  | { permission: PermissionStep }
  | { elicit: ElicitStep }
  | { sleepMs: number }
  | { spawn: string; toolCallId?: string; wait?: boolean }
  | { crash: { code?: number; signal?: NodeJS.Signals } }
  | { stderr: string; repeat?: number }
  | { garbage: string }
  | { oversized: number }
  | { unknownResponse: true }
  | { call: { method: string; params?: unknown } }
  | { notify: { method: string; params?: unknown } }
  | { hang: true }
  /** Killed or hung (faults.ts) now, or `inMs` later while the next steps go on. */
  | { fault: Fault; inMs?: number }
  /** Wait (cancellable) until a steer came into this turn, then say what it was. */
  | { waitForSteer: true }
  | { error: RpcError }
  | { info: unknown }
  /** Any session/update payload, for the turn's session. */
  | { update: unknown }
  /** The agent changes a config option itself: config_option_update with the complete state. */
  | { setConfig: { configId: string; value: string | boolean } }
  /** The agent changes its mode itself: current_mode_update. */
  | { setMode: string }
  | { terminal: TerminalStep };

export interface Options {
  /** undefined: demo mode. */
  scenario?: Scenario;
  recordFile?: string;
  /** `--login`: run the scenario's terminal sign-in and exit (auth.ts). */
  login?: boolean;
}

export class ScenarioError extends Error {}

const USAGE = 'usage: scripted-agent [--scenario FILE | --scenario-json JSON | --demo] [--record FILE] [--login]';

/** Command line first, then REINS_SCENARIO, REINS_SCENARIO_JSON, REINS_RECORD; nothing: demo. */
export function loadOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  let file: string | undefined;
  let json: string | undefined;
  let demo = false;
  let recordFile: string | undefined;
  let login = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!; // i < argv.length
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const [flag, inline] = eq >= 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new ScenarioError(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    if (flag === '--scenario') file = value();
    else if (flag === '--scenario-json') json = value();
    else if (flag === '--record') recordFile = value();
    else if (flag === '--demo') demo = true;
    else if (flag === '--login') login = true;
    else throw new ScenarioError(`unknown argument ${arg}\n${USAGE}`);
  }
  recordFile ??= env.REINS_RECORD || undefined;
  if (demo) return { recordFile };
  if (file === undefined && json === undefined) {
    file = env.REINS_SCENARIO || undefined;
    if (file === undefined) json = env.REINS_SCENARIO_JSON || undefined;
  }
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ScenarioError(`cannot read scenario ${file}: ${(err as Error).message}`);
    }
    return { scenario: parseScenario(text, file), recordFile, login };
  }
  if (json !== undefined) return { scenario: parseScenario(json, 'the JSON scenario'), recordFile, login };
  return { recordFile };
}

export function parseScenario(text: string, source: string): Scenario {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ScenarioError(`${source} is not JSON: ${(err as Error).message}`);
  }
  const problem = checkScenario(value);
  if (problem) throw new ScenarioError(`${source}: ${problem.at.replace(/^\./, '') || 'scenario'}: ${problem.what}`);
  return value as Scenario;
}

/** The behaviour of prompt #index: the last one repeats. */
export function behaviourFor(scenario: Scenario, index: number): Behaviour {
  // Validation requires at least one prompt (arrayOf(behaviour, true)), so the index is in range.
  return scenario.prompts[Math.min(index, scenario.prompts.length - 1)]!;
}

export type TerminalStep =
  | {
      create: { command: string; args?: string[]; env?: { name: string; value: string }[]; cwd?: string | null; outputByteLimit?: number };
      /** The name later steps use. */
      as?: string;
      /** Embed the terminal in this tool call (a tool_call_update with `content: [{type: 'terminal'}]`). */
      toolCallId?: string;
      sessionId?: string;
    }
  | { output: string; sessionId?: string }
  | { waitForExit: string; sessionId?: string }
  | { kill: string; sessionId?: string }
  | { release: string; sessionId?: string };
