// The scripted agent's scenario checked before it plays: each check returns undefined, or where
// (".prompts[0].steps[2]") and what is wrong, so that a test's typo fails at start with its
// place named instead of mid-turn. The shapes themselves are in scenario.ts.
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
    ? oneOf('quick', 'never', 'end_turn', 'error', 'context-canceled', 'exit', 'kill', 'hang')(v)
    : shape({ delayMs: num, delayRangeMs: range, answer: oneOf('cancelled', 'end_turn', 'error', 'context-canceled') })(v);

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
        background: bool,
        description: str,
        command: shape({ command: str, cwd: str }, ['command', 'cwd']),
      },
      ['toolCallId', 'title'],
    ),
  },
  elicit: { check: shape({ params: anything, abortOnCancel: bool, withdrawAfterMs: num, completeAfterMs: num }, ['params']) },
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
    cancelUpdates: arrayOf(sessionUpdate),
    withdrawOnCancel: bool,
  },
  ['steps'],
);

export const checkScenario = shape(
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
      agentInfo: shape({ name: str, title: str, version: str }, ['name']),
    }),
    session: shape({
      modes: anything,
      configOptions: anything,
      before: arrayOf(anything),
      setError: shape({ code: num, message: str, data: anything }, ['code', 'message']),
      elicit: shape({ params: anything }, ['params']),
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
    promptCountFile: str,
    sessions: shape({
      load: bool,
      resume: bool,
      list: bool,
      pageSize: num,
      close: bool,
      delete: bool,
      file: str,
      seed: num,
      replayIntervalMs: num,
      replayHold: shape({ sessionId: str, after: num, file: str }, ['sessionId', 'after', 'file']),
    }),
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
