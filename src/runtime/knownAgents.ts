// What Reins knows of each agent's behaviour around a turn and its cancel, in one table: per
// agent (recognised by initialize's `agentInfo.name`) and per version seen. The README's agent
// section is this table (test/unit/knownAgents.test.ts checks that it matches), and each row
// names the scripted-agent scenario that behaves that way. No `vscode`: the runtime, the folder
// session and the tests read the same rows.
//
// Most rows only document: Reins handles their behaviour for every agent (the leftover check,
// permissions answered before the cancel, goose's busy and idle forms). Rows with `steer` or
// `outOfStep` carry what Reins does differently for that agent.
/** How a steer goes on the wire: ACP's `_session/steering` extension, or goose's own (with its run id). */
type SteerWire = 'acp' | 'goose';

export interface SteerMethod {
  method: string;
  wire: SteerWire;
}

export interface KnownAgent {
  /** As the README names it. */
  agent: string;
  /** `agentInfo.name` as the agent reports it in `initialize` (absent: a row for any agent that behaves so). */
  name?: RegExp;
  /** `agentInfo.version`s this row holds for (every version when absent). */
  version?: RegExp;
  /** The versions it was measured or read at, for the README. */
  seen: string;
  /** What it does around a cancel (README column). */
  behaviour: string;
  /** What Reins does about it (README column). */
  handling: string;
  /** The scripted-agent scenarios (test/fixtures/scriptedAgent/scenarios/) that behave this way. */
  scenarios: string[];
  /** Text into a running turn: the method, where it offers one without advertising it. */
  steer?: SteerMethod;
  /** What recovers it when it answers one turn behind after a stop (outOfStep.ts). */
  outOfStep?: OutOfStepRecovery;
  /** The preset (agents/presets.ts) this row is about, by its name. */
  preset?: string;
}

const GOOSE_STEER: SteerMethod = { method: '_goose/unstable/session/steer', wire: 'goose' };
/** ACP's steering extension, advertised as `_meta.steering.supported` in `initialize`. */
export const ACP_STEER: SteerMethod = { method: '_session/steering', wire: 'acp' };

export const KNOWN_AGENTS: readonly KnownAgent[] = [
  {
    agent: "any agent sending ACP v2's `state_update`",
    seen: 'the ACP v2 draft',
    behaviour: "`running` when a turn's work starts, `idle` (with a stop reason) when it ends.",
    handling:
      "Takes `idle` for a stopped turn as evidence (under v1 too), only after that turn's `running`: an earlier turn's late `idle` is never taken for the next one. Reins asks for ACP v1; an agent that refuses it with -32022 and offers version 2 gets v2, whose prompt answer only acknowledges the prompt (the turn ends at `idle`).",
    scenarios: ['state-update'],
  },
  {
    agent: 'any agent speaking ACP v2',
    seen: 'the ACP v2 draft (July 2026)',
    behaviour:
      'On a cancel, withdraws its pending requests with `$/cancel_request`; reports tool calls and plan entries `cancelled`; sends a diff as `changes` with a `git_patch`; loads and resumes with one method, `session/resume` (`replayFrom`); streams tool content (`tool_call_content_chunk`) and its own terminals (`terminal_update`, `terminal_output_chunk`); names every message (`messageId`, whole-message upserts); asks permission with a `title` and a `tool_call` or `command` subject.',
    handling:
      "Answers each pending permission `cancelled` before it cancels, so a withdrawal finds it answered (one still pending is answered -32800 and its card closes); shows `cancelled` as the agent's word (a status of its own changes nothing); shows a patch's hunks in the card and the whole files in Open Diff; loads with `session/resume` from the start. Appends streamed content and shows the agent's terminals in their card (bounded, as text); shows a message once by its id (a repeated id replaces it; the prompt's acknowledgement names the typed prompt); shows the request's own question, and the command with its folder. A stop during streamed content or an agent terminal settles at the `idle`.",
    scenarios: ['v2-withdraw-on-cancel', 'v2-cancelled-status', 'v2-git-patch', 'v2-resume', 'v2-stream', 'v2-stream-stop'],
  },
  {
    agent: 'goose',
    name: /^goose$/i,
    seen: 'from its source',
    behaviour:
      'A cancel that arrives before its run is reserved is dropped; unwinding takes seconds; a prompt while a run is active is rejected ("active run"; the error names `_goose/unstable/session/steer`).',
    handling:
      'Re-sends the cancel (250 ms, 1 s, 3 s, then every 3 s); takes `_meta.goose.activeRunId: null` as evidence; a busy rejection is cancelled and retried within `reins.busyRetrySeconds`. Steers through `_goose/unstable/session/steer` with the run id goose announced.',
    scenarios: ['goose-busy', 'drops-early-cancel', 'steer-goose'],
    preset: 'goose',
    steer: GOOSE_STEER,
  },
  {
    agent: 'codex-acp',
    name: /codex/i,
    seen: '0.16.0; 2.6.0 (`@agentclientprotocol/codex-acp`, Codex 0.166)',
    behaviour:
      'Answers `cancelled` in 4–37 ms (2.6.0: 13–37, in a tool, a stalled stream or with a permission pending) but leaves the cancelled command (`sleep 37`) running (2.6.0: inside its `bwrap` sandbox) and never ends its tool call; ignores stdin closing. 2.6.0 advertises steering.',
    handling:
      "Finds that command below the agent by the tool call's `rawInput.command` and ends it (`reins.leftoverProcesses`); ends the agent with signals, not by closing stdin.",
    scenarios: ['tool-leftover'],
    preset: 'codex',
  },
  {
    agent: 'claude-agent-acp',
    name: /claude-(agent|code)-acp/i,
    version: /^0\.23\./,
    seen: '0.23.1',
    behaviour:
      'Answers `cancelled` in 39–155 ms and Claude Code ends its tool 25–45 ms later; starts one Claude Code process per session and ignores stdin closing. Answers the prompt after a cancel one turn behind: at once, `end_turn`, no content, zero usage, while it goes on working unseen.',
    handling:
      "Never takes its per-session process for a leftover. Recognises the one-turn-behind answer, restarts the agent (ending the unseen work) in the same session and sends the prompt again by itself when the checkpoint shows that nothing changed (`sendPrompt`: the second turn's result with `sentTwice: true`); otherwise gives the prompt back beside the changed files and *Undo* (`{ status: 'failed', outOfStep: true, recovery, changedFiles }`).",
    scenarios: ['one-behind-after-cancel', 'one-behind-resend', 'one-behind-edits'],
    preset: 'claude',
    outOfStep: 'resend',
  },
  {
    agent: 'claude-agent-acp (0.101)',
    name: /claude-(agent|code)-acp/i,
    version: /^0\.101\./,
    seen: '0.101.0 (`@agentclientprotocol/claude-agent-acp`)',
    behaviour:
      'Answers `cancelled` in 3–112 ms, reports the running tool `failed` (`user-rejected`), and Claude Code has ended it 2–18 ms after the answer; the prompt after a cancel is answered in step. Starts one Claude Code process per session, in the `auto` permission mode unless the settings name another; advertises steering.',
    handling: 'Never takes its per-session process for a leftover; steers through `_session/steering`. No recovery needed after a stop.',
    scenarios: ['own-session-process', 'steer-acp'],
  },
  {
    agent: 'gemini-cli',
    name: /gemini/i,
    seen: '0.61.0',
    behaviour:
      'Answers `cancelled` in 2–100 ms and has ended its tool 2–5 ms after the answer (reported `completed`, "Command cancelled by user."). Never answers the prompt while a permission request is unanswered.',
    handling: 'Answers every pending permission `cancelled` before it cancels.',
    scenarios: ['permission-pending'],
    preset: 'gemini',
  },
  {
    agent: 'qwen',
    name: /qwen/i,
    seen: '0.24.4 measured; the permission wait seen with 0.15.10',
    behaviour:
      'Answers `cancelled` in 10–233 ms (a stalled stream the slowest) and has ended its tool 3–100 ms after the answer. Never answers the prompt while a permission request is unanswered (0.15.10: nor any later prompt).',
    handling: 'Answers every pending permission `cancelled` before it cancels.',
    scenarios: ['permission-pending'],
    preset: 'qwen',
  },
  {
    agent: 'OpenCode',
    name: /opencode/i,
    seen: '1.18.33',
    behaviour:
      'Answers `cancelled` in 48–1060 ms (1–2.5 s when the cancel comes within 300 ms of the prompt) and has ended its command 2–11 ms after the answer; a pending permission answered `cancelled` can end the turn `end_turn` first.',
    handling: 'Waits for the answer (the settle budget is 10 s).',
    scenarios: ['slow-unwind'],
    preset: 'opencode',
  },
  {
    agent: 'pi-acp',
    name: /pi-acp/i,
    seen: '0.0.34',
    behaviour: 'Answers `cancelled` in 8–96 ms and pi has ended its tool 2–18 ms after the answer. Talks to its own `pi` child for the whole session.',
    handling: 'Never takes `pi` for a leftover.',
    scenarios: ['own-session-process'],
    preset: 'pi',
  },
  {
    agent: 'any agent that advertises steering',
    seen: 'codex-acp 2.6.0 and claude-agent-acp 0.101.0 (measured: a steer into a running `sleep 37` turn delivered)',
    behaviour:
      'Says `_meta.steering.supported: true` (or names a method in `_meta.steering.method`) in its `initialize` answer, and takes `_session/steering` into the running turn.',
    handling:
      'Steers through that method, asking it not to start a turn of its own when none runs (`idleBehavior: "promptRequired"`); an answer other than `injected` queues the text instead.',
    scenarios: ['steer-acp'],
  },
  {
    agent: 'GitHub Copilot CLI (`copilot --acp`)',
    name: /copilot/i,
    preset: 'copilot',
    seen: '1.0.102 measured; `end_turn` reported for other versions',
    behaviour:
      'Answers a cancel `cancelled` in 11–26 ms (in a tool, a stalled stream or with a permission pending) and has ended its tool 4–6 ms after the answer; some versions are reported to answer a cancelled prompt `end_turn`. Writes files itself.',
    handling:
      "Any answer after the cancel confirms the stop, whatever its stop reason: the turn is stopped, never completed, and what the agent says after it is shown as the stopped turn's, labelled late.",
    scenarios: ['end-turn-after-cancel-late'],
  },
  {
    agent: 'any agent answering a cancelled prompt with an error',
    seen: 'reported (-32000 `context canceled`); -32603 as the scripted agent plays it',
    behaviour: 'Answers the cancelled prompt with a JSON-RPC error: -32000 `context canceled`, -32603 `operation aborted`.',
    handling: "Takes the error as the stop's confirmation (not as a failed turn, nor -32000 as a sign-in request).",
    scenarios: ['context-canceled-on-cancel', 'error-on-cancel'],
  },
];

type AgentInfo = { name?: string; version?: string } | null | undefined;

/** The rows that hold for this agent and version. */
export function knownRows(info: AgentInfo): KnownAgent[] {
  return KNOWN_AGENTS.filter((k) => k.name?.test(info?.name ?? '') && (!k.version || k.version.test(info?.version ?? '')));
}

/** The row about a preset (agents/presets.ts), by the preset's name. */
export function presetRow(preset: string): KnownAgent | undefined {
  return KNOWN_AGENTS.find((k) => k.preset === preset);
}

/** The README's table, from the rows (checked against the README by a test). */
export function knownAgentsMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const lines = [
    '| agent | versions seen | on `session/cancel` and around a turn | what Reins does | scripted scenario |',
    '|---|---|---|---|---|',
    ...KNOWN_AGENTS.map(
      (k) => `| ${cell(k.agent)} | ${cell(k.seen)} | ${cell(k.behaviour)} | ${cell(k.handling)} | ${k.scenarios.map((s) => `\`${s}\``).join(', ')} |`,
    ),
  ];
  return lines.join('\n');
}

/** What Reins does when it sees the signature (per agent, from its quirk entry). */
/** `resend`: restart in the same session and send the prompt again when the checkpoint shows the
 *  unseen work changed nothing (outOfStepRecovery.ts), else give it back; `restart`: restart and
 *  give it back; `none`: say so only. */
export type OutOfStepRecovery = 'resend' | 'restart' | 'none';
