// A scenario behaviour as a turn body: its steps, one after the other.
import type { SessionUpdate, StopReason, ToolCallStatus, ToolKind } from '@agentclientprotocol/sdk' with { 'resolution-mode': 'import' };
import type { Behaviour, Step } from './scenario';
import { runTerminalStep } from './terminalSteps';
import type { Turn, TurnBody, TurnEnd, TurnHost } from './turn';

/** Ids for `unknownResponse`: far above any id a client would have used. */
let unrequestedId = 2_000_000_000;

const DEFAULT_PERMISSION_OPTIONS = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
];

export function scriptedBody(behaviour: Behaviour, host: TurnHost): TurnBody {
  return async (turn) => {
    for (const step of behaviour.steps) {
      turn.checkpoint();
      const end = await runStep(step, turn, host);
      if (end) return end;
    }
    // Not checked against the schema: a scenario may send a stop reason no client knows.
    return { stopReason: (behaviour.stopReason ?? 'end_turn') as StopReason };
  };
}

/**
 * ACP v2's request: the step's title is the question; its subject the tool call (its state only,
 * never the question as its title) or, with `command`, the command the agent would run.
 */
function v2Permission(p: Extract<Step, { permission: unknown }>['permission'], turn: Turn): Record<string, unknown> {
  const subject = p.command
    ? { type: 'command', command: p.command.command, cwd: fill(p.command.cwd, turn), toolCallId: p.toolCallId }
    : { type: 'tool_call', toolCall: { toolCallId: p.toolCallId, status: 'pending', ...(p.kind !== undefined && { kind: p.kind }) } };
  return { title: p.title, ...(p.description !== undefined && { description: p.description }), subject };
}

/** Runs one step; a step that ends the turn (`error`) returns how. */
async function runStep(step: Step, turn: Turn, host: TurnHost): Promise<TurnEnd | undefined> {
  if ('text' in step) await turn.stream('agent_message_chunk', step.text, step.chunk, step.intervalMs);
  else if ('thought' in step) await turn.stream('agent_thought_chunk', step.thought, step.chunk, step.intervalMs);
  else if ('flood' in step) await flood(turn, host, step.flood);
  else if ('tool' in step) {
    const { id, title, kind = 'other', status = 'pending', rawInput } = step.tool;
    // ACP v2 has no tool_call: the first update of an id creates it (same fields).
    const sessionUpdate: 'tool_call' = host.states === 'v2' ? ('tool_call_update' as unknown as 'tool_call') : 'tool_call';
    turn.update({
      sessionUpdate,
      toolCallId: id,
      title,
      kind: kind as ToolKind,
      status: status as ToolCallStatus,
      ...(rawInput !== undefined && { rawInput }),
    });
  } else if ('toolUpdate' in step) {
    const { id, status, text } = step.toolUpdate;
    turn.update({
      sessionUpdate: 'tool_call_update',
      toolCallId: id,
      ...(status !== undefined && { status: status as ToolCallStatus }),
      ...(text !== undefined && { content: [{ type: 'content', content: { type: 'text', text } }] }),
    });
  } else if ('permission' in step) {
    const { toolCallId, title, kind, options = DEFAULT_PERMISSION_OPTIONS, abortOnCancel, withdrawAfterMs, background } = step.permission;
    const params = host.states === 'v2' ? v2Permission(step.permission, turn) : { toolCall: { toolCallId, title, ...(kind !== undefined && { kind }) } };
    const asked = turn.permission({ ...params, options }, abortOnCancel, withdrawAfterMs);
    // In the background its answer is recorded all the same; a `cancelled` one cancels the turn.
    if (background) asked.catch(() => undefined);
    else await asked;
  } else if ('elicit' in step) {
    const { params, abortOnCancel, withdrawAfterMs, completeAfterMs } = step.elicit;
    const filled = fill(params, turn) as Record<string, unknown>;
    const action = await turn.elicit(filled, abortOnCancel, withdrawAfterMs);
    if (action === 'accept' && completeAfterMs !== undefined && typeof filled.elicitationId === 'string') {
      await turn.sleep(completeAfterMs);
      host.peer.notify('elicitation/complete', { elicitationId: filled.elicitationId });
    }
  } else if ('sleepMs' in step) await turn.sleep(step.sleepMs);
  else if ('spawn' in step) await turn.spawn(step.spawn, step.toolCallId, step.wait);
  else if ('crash' in step) crash(host, step.crash.code, step.crash.signal);
  else if ('stderr' in step) await floodStderr(turn, step.stderr, step.repeat ?? 1);
  else if ('garbage' in step) host.peer.sendRaw(step.garbage, { raw: step.garbage });
  else if ('oversized' in step) {
    // One line of exactly n bytes: a JSON string value of ASCII letters.
    const n = Math.max(2, Math.floor(step.oversized));
    host.peer.sendRaw(`"${'x'.repeat(n - 2)}"`, { oversized: n });
  } else if ('unknownResponse' in step) host.peer.respond(unrequestedId++, {});
  else if ('call' in step) await turn.call(step.call.method, fill(step.call.params, turn));
  else if ('notify' in step) host.peer.notify(step.notify.method, fill(step.notify.params, turn));
  else if ('hang' in step) await turn.hang();
  else if ('fault' in step) {
    const { fault, inMs } = step;
    // Later: the next steps go on (a permission asked, a write under way) until it fires.
    if (inMs !== undefined) setTimeout(() => host.fault(fault, 'turn'), inMs);
    else if (host.fault(fault, 'turn')) await new Promise<never>(() => {}); // hung: this turn never goes on
  } else if ('waitForSteer' in step) await turn.stream('agent_message_chunk', `Steered: ${await turn.nextSteer()}`, 64);
  else if ('error' in step) return { error: step.error };
  else if ('info' in step) turn.update({ sessionUpdate: 'session_info_update', _meta: step.info as Record<string, unknown> });
  // Not checked against the schema: a scenario may send an update kind no client knows.
  else if ('update' in step) turn.update(fill(step.update, turn) as SessionUpdate);
  else if ('setConfig' in step) {
    const update = turn.session.config?.agentSets(step.setConfig.configId, step.setConfig.value);
    if (update) turn.update(update as SessionUpdate);
  } else if ('setMode' in step) {
    const update = turn.session.config?.agentSetsMode(step.setMode);
    if (update) turn.update(update as SessionUpdate);
  } else if ('terminal' in step) await runTerminalStep(step.terminal, turn, (v) => fill(v, turn));
  return undefined;
}

function crash(host: TurnHost, code = 1, signal?: NodeJS.Signals): never {
  host.rec.event('exiting', { reason: 'crash', ...(signal ? { signal } : { code }) });
  if (signal) {
    // Our own handlers (SIGTERM) must not turn the crash into a clean exit.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code);
}

async function floodStderr(turn: Turn, line: string, repeat: number): Promise<void> {
  for (let i = 0; i < repeat; i++) {
    process.stderr.write(line + '\n');
    // Let the client's reads and our cancels interleave with a long flood.
    if (i % 500 === 499) await turn.sleep(0);
  }
}

/**
 * Chunks at a steady rate: a timer cannot fire every 0.2 ms, so each tick sends the chunks
 * that are due by the clock. Recorded: `flood-sent` with the count and how long it took.
 */
async function flood(turn: Turn, host: TurnHost, { count, perSecond, paragraph = 0 }: { count: number; perSecond: number; paragraph?: number }): Promise<void> {
  const started = performance.now();
  let sent = 0;
  while (sent < count) {
    const due = Math.min(count, Math.floor(((performance.now() - started) / 1000) * perSecond) + 1);
    for (; sent < due; sent++) {
      const text = `c${sent} ${paragraph > 0 && sent % paragraph === paragraph - 1 ? '\n\n' : ''}`;
      turn.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
    }
    if (sent < count) await turn.sleep(1);
  }
  host.rec.event('flood-sent', { count, ms: performance.now() - started });
}

/** `${cwd}` and `${sessionId}` in any string of `params` become the session's. */
function fill(params: unknown, turn: Turn): unknown {
  if (typeof params === 'string') {
    return params.replaceAll('${cwd}', turn.session.cwd).replaceAll('${sessionId}', turn.session.id);
  }
  if (Array.isArray(params)) return params.map((p) => fill(p, turn));
  if (typeof params === 'object' && params !== null) {
    return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, fill(v, turn)]));
  }
  return params;
}
