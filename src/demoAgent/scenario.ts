// What a scenario may say, how it is found on the command line, and a light validation that
// names the offending place ("prompts[0].steps[2]: …") instead of failing mid-turn.
import { readFileSync } from 'node:fs';
import type { SessionSetup } from './sessionConfig';
import type { AuthOptions } from './auth';
import type { SessionsOptions } from './sessions';
import type { TerminalStep } from './terminalSteps';
import type { Fault } from './faults';

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

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
    /** Report this `agentInfo` (name, version) instead of the scripted agent's: to pose as a known agent. */
    agentInfo?: { name: string; version?: string };
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
   * no content and a zero `usage`, while its work (the behaviour's `spawn` steps) runs on unseen.
   */
  oneBehindAfterCancel?: boolean;
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
  answer?: 'cancelled' | 'end_turn' | 'error';
}

/** `kill`, `hang`: the fault (faults.ts) when the cancel arrives. */
export type OnCancel = 'quick' | 'never' | 'end_turn' | 'error' | 'exit' | 'kill' | 'hang' | CancelAnswer;

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
}

/** session/update payloads about a cancelled turn, sent after its answer. */
export interface AfterCancel {
  /** Sent this many ms after the answer (default 0). */
  delayMs?: number;
  updates?: unknown[];
  /** Sent when the session's next prompt arrives, before that turn begins. */
  atNextPrompt?: unknown[];
}

export interface PermissionStep {
  toolCallId: string;
  title: string;
  kind?: string;
  options?: { optionId: string; name: string; kind: string }[];
  /** Stop waiting for the answer when a cancel is accepted (default: wait for it, as gemini does). */
  abortOnCancel?: boolean;
  /** Withdraw the request with `$/cancel_request` after this many ms (the answer is recorded). */
  withdrawAfterMs?: number;
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

// ---- validation: a check returns undefined or where (".prompts[0].steps[2]") and what ----

interface Problem {
  at: string;
  what: string;
}
type Check = (v: unknown) => Problem | undefined;

const fail = (what: string): Problem => ({ at: '', what });
export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : fail('must be a number'));
const str: Check = (v) => (typeof v === 'string' ? undefined : fail('must be a string'));
const bool: Check = (v) => (typeof v === 'boolean' ? undefined : fail('must be true or false'));
const isTrue: Check = (v) => (v === true ? undefined : fail('must be true'));
const anything: Check = () => undefined;
const range: Check = (v) => {
  const [lo, hi, ...more] = Array.isArray(v) ? (v as unknown[]) : [];
  return typeof lo === 'number' && typeof hi === 'number' && more.length === 0 && lo <= hi ? undefined : fail('must be [lo, hi] with lo <= hi');
};

function oneOf(...values: string[]): Check {
  return (v) => (typeof v === 'string' && values.includes(v) ? undefined : fail(`must be one of ${values.join(', ')}`));
}

/** An object whose keys are checked; `required` keys must be present, unknown keys are refused. */
function shape(fields: Record<string, Check>, required: string[] = []): Check {
  return (v) => {
    if (!isObj(v)) return fail('must be an object');
    for (const key of required) if (!(key in v)) return fail(`needs "${key}"`);
    for (const [key, val] of Object.entries(v)) {
      const check = fields[key];
      if (!check) return fail(`unknown field "${key}" (known: ${Object.keys(fields).join(', ')})`);
      const problem = check(val);
      if (problem) return { at: `.${key}${problem.at}`, what: problem.what };
    }
    return undefined;
  };
}

function arrayOf(check: Check, nonEmpty = false): Check {
  return (v) => {
    if (!Array.isArray(v)) return fail('must be an array');
    if (nonEmpty && v.length === 0) return fail('must not be empty');
    for (let i = 0; i < v.length; i++) {
      const problem = check(v[i]);
      if (problem) return { at: `[${i}]${problem.at}`, what: problem.what };
    }
    return undefined;
  };
}

const strings = arrayOf(str);

const onCancel: Check = (v) =>
  typeof v === 'string'
    ? oneOf('quick', 'never', 'end_turn', 'error', 'exit', 'kill', 'hang')(v)
    : shape({ delayMs: num, delayRangeMs: range, answer: oneOf('cancelled', 'end_turn', 'error') })(v);

/** Each step kind: its main key's check and the companion keys it allows. */
const STEPS: Record<string, { check: Check; extra?: Record<string, Check> }> = {
  text: { check: str, extra: { chunk: num, intervalMs: num } },
  thought: { check: str, extra: { chunk: num, intervalMs: num } },
  flood: { check: shape({ count: num, perSecond: num, paragraph: num }, ['count', 'perSecond']) },
  tool: { check: shape({ id: str, title: str, kind: str, status: str, rawInput: anything }, ['id', 'title']) },
  toolUpdate: { check: shape({ id: str, status: str, text: str }, ['id']) },
  permission: {
    check: shape(
      {
        toolCallId: str,
        title: str,
        kind: str,
        options: arrayOf(shape({ optionId: str, name: str, kind: str }, ['optionId', 'name', 'kind'])),
        abortOnCancel: bool,
        withdrawAfterMs: num,
      },
      ['toolCallId', 'title'],
    ),
  },
  sleepMs: { check: num },
  spawn: { check: str, extra: { toolCallId: str, wait: bool } },
  crash: { check: shape({ code: num, signal: str }) },
  stderr: { check: str, extra: { repeat: num } },
  garbage: { check: str },
  oversized: { check: num },
  unknownResponse: { check: isTrue },
  call: { check: shape({ method: str, params: anything }, ['method']) },
  notify: { check: shape({ method: str, params: anything }, ['method']) },
  hang: { check: isTrue },
  waitForSteer: { check: isTrue },
  error: { check: shape({ code: num, message: str, data: anything }, ['code', 'message']) },
  info: { check: anything },
  update: { check: (v) => sessionUpdate(v) },
  setConfig: { check: shape({ configId: str, value: anything }, ['configId', 'value']) },
  setMode: { check: str },
  fault: { check: oneOf('kill', 'hang'), extra: { inMs: num } },
  terminal: { check: (v) => terminalStep(v) },
};

/** One terminal action per step (terminalSteps.ts); `create` takes the spec's params. */
const terminalStep: Check = (v) => {
  if (!isObj(v)) return fail('must be an object');
  const [action, ...others] = ['create', 'output', 'waitForExit', 'kill', 'release'].filter((k) => k in v);
  if (action === undefined || others.length > 0) return fail('needs exactly one of create, output, waitForExit, kill, release');
  if (action !== 'create') return shape({ [action]: str, sessionId: str })(v);
  const env = arrayOf(shape({ name: str, value: str }, ['name', 'value']));
  const create = shape({ command: str, args: strings, env, cwd: anything, outputByteLimit: num }, ['command']);
  return shape({ create, as: str, toolCallId: str, sessionId: str })(v);
};

const step: Check = (v) => {
  if (!isObj(v)) return fail('a step must be an object');
  const [kind, ...others] = Object.keys(v).filter((k) => k in STEPS);
  const spec = kind === undefined ? undefined : STEPS[kind];
  if (kind === undefined || spec === undefined || others.length > 0) {
    return fail(`a step needs exactly one of ${Object.keys(STEPS).join(', ')}; got ${JSON.stringify(v).slice(0, 80)}`);
  }
  const { check, extra = {} } = spec;
  return shape({ [kind]: check, ...extra })(v);
};

const sessionUpdate: Check = (v) => (isObj(v) && typeof v.sessionUpdate === 'string' ? undefined : fail('needs a "sessionUpdate" string'));

const behaviour = shape(
  {
    steps: arrayOf(step),
    stopReason: str,
    onCancel,
    dropEarlyCancelMs: num,
    killToolsOnCancel: bool,
    idleOnCancel: bool,
    repeatIdleMs: num,
    afterCancel: shape({ delayMs: num, updates: arrayOf(sessionUpdate), atNextPrompt: arrayOf(sessionUpdate) }),
  },
  ['steps'],
);

const checkScenario = shape(
  {
    name: str,
    init: shape({
      delayMs: num,
      never: bool,
      exitCode: num,
      stderr: strings,
      protocolVersion: num,
      supported: arrayOf(num),
      capabilities: anything,
      agentInfo: shape({ name: str, version: str }, ['name']),
    }),
    session: shape({
      modes: anything,
      configOptions: anything,
      before: arrayOf(anything),
      setError: shape({ code: num, message: str, data: anything }, ['code', 'message']),
    }),
    startup: shape({
      exitImmediately: num,
      stderrLines: strings,
      garbageBefore: strings,
      stayOnStdinClose: bool,
      ignoreSigterm: bool,
      sessionProcess: str,
    }),
    goose: bool,
    stateUpdates: bool,
    steering: oneOf('acp', 'goose'),
    oneBehindAfterCancel: bool,
    sessions: shape({ load: bool, resume: bool, list: bool, pageSize: num, close: bool, delete: bool, file: str, seed: num, replayIntervalMs: num }),
    auth: shape(
      {
        methods: arrayOf(anything),
        at: oneOf('session', 'prompt'),
        envVar: str,
        accept: strings,
        loginFile: str,
        loginExitCode: num,
        sessionsBeforeExpiry: num,
      },
      ['methods'],
    ),
    fault: shape({ initialize: oneOf('kill', 'hang'), sessionNew: oneOf('kill', 'hang'), once: str, armed: str }),
    prompts: arrayOf(behaviour, true),
  },
  ['prompts'],
);
