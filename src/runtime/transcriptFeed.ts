// The host transcript listens to the runtime directly: the agent's updates, the prompt at the
// start of each turn, the tools a stop cancelled, live terminal output in its card, permission
// requests and how each was answered. What the user is *told* (notices about stops, exits,
// sign-in) stays with the folder conversation, which decides it. One feed per agent process, and a new
// generation of the transcript's at each session it opens (new, loaded, resumed): what the agent
// names from then on (a tool call id it counts from the start again) is told apart from what it
// and earlier processes named, a load's replay included.
import type { AgentRuntime, PendingPermission } from './agentRuntime';
import { feedElicitations } from './elicitationFeed';
import { LateUpdates } from './lateUpdates';
import { asChunk, MessageUpserts } from './messageUpserts';
import { permissionAsk } from './permissionView';
import { showTerminalOutput } from './terminalCards';
import type { Transcript } from './transcript';
import { v1Shape } from './v2Updates';
import { DisposableStore, type Disposable } from '../util/disposable';

export function feedTranscript(rt: AgentRuntime, transcript: Transcript): Disposable {
  const d = new DisposableStore();
  // Which turn an update speaks for: a stopped turn's late ones go to that turn, labelled late.
  const late = new LateUpdates();
  let generation = transcript.nextGeneration();
  // After a load's replay (onOpened follows its answer): the replayed cards are history.
  d.add(rt.session.switch.onOpened(() => (generation = transcript.nextGeneration())));
  // ACP v2's messages by id (messageUpserts.ts); an agent speaking v1 never reaches it.
  const messages = new MessageUpserts({
    apply: (n) => transcript.apply(n, undefined, generation),
    get: (id) => transcript.get(id),
    upsert: (entry, keepStreaming) => transcript.upsert(entry, keepStreaming),
    get streamingId() {
      return transcript.streamingId;
    },
    endStream: () => transcript.endStream(),
  });
  d.add(transcript.onOp((op) => op.type === 'reset' && (late.reset(), messages.reset())));
  d.add(
    rt.session.onUpdate((given) => {
      const update = v1Shape(given.update);
      const n = update === given.update ? given : { ...given, update };
      const placement = late.place(update, n.sessionId);
      if (!placement.late && (rt.agentInfo?.protocolVersion ?? 1) >= 2 && messages.take(n)) return;
      transcript.apply(placement.late ? { ...n, update: asChunk(n.update) } : n, placement, generation);
    }),
  );
  // After the line above: a terminal's live output goes into the card the update just made.
  d.add(
    showTerminalOutput(rt, {
      cardId: (sessionId, toolCallId) => transcript.cardId(sessionId, toolCallId, generation),
      get: (id) => transcript.get(id),
      upsert: (entry, keepStreaming) => transcript.upsert(entry, keepStreaming),
      terminalShown: (id, terminalId) => transcript.terminalShown(id, terminalId),
    }),
  );
  d.add(
    rt.turns.onTurnStarted(({ turnId, text }) => {
      const prompt = transcript.user(text);
      late.turnStarted(turnId, prompt);
      messages.promptShown(prompt);
    }),
  );
  d.add(
    rt.turns.onTurnEnded(({ turnId, result }) => {
      messages.turnEnded();
      late.turnEnded(turnId, result.kind === 'stopped');
      if (result.kind === 'failed') transcript.planEnded();
    }),
  );
  // A stop's end, once confirmed (also when it was unconfirmed first): the plan's unfinished items stopped.
  d.add(rt.turns.onStop((report) => report.outcome !== 'abort-unverified' && transcript.planEnded()));
  d.add(rt.turns.onToolsCancelled(() => transcript.markToolsCancelled()));
  /** The requests this feed shows (their entries are theirs to update). */
  const shown = new Set<string>();
  d.add(
    rt.turns.permissions.onRequest((p) => {
      const cannot = transcript.permission(p, generation);
      if (cannot === undefined) return void shown.add(p.id);
      // A request nobody can see waits for ever, and its turn with it: answered now, and said.
      transcript.notice(
        'warning',
        `${rt.name} asked for permission${titleOf(p)}, but Reins cannot show the request (${cannot}), so it answered it “cancelled”.`,
      );
      rt.turns.refusePermission(p.id, cannot);
    }),
  );
  d.add(
    rt.turns.permissions.onResolved(({ id, optionId, cancelled, withdrawn, unshown }) => {
      const entry = transcript.get(id);
      if (!shown.delete(id) || entry?.kind !== 'permission') return;
      const chosen = entry.options.find((o) => o.optionId === optionId)?.name;
      const resolved = withdrawn
        ? 'withdrawn by the agent'
        : unshown !== undefined
          ? `cancelled: the panel could not show it (${unshown})`
          : cancelled
            ? 'cancelled'
            : (chosen ?? optionId);
      transcript.upsert({ ...entry, resolved });
    }),
  );
  d.add(feedElicitations(rt, transcript, () => generation));
  return d;
}

function titleOf(p: PendingPermission): string {
  const title = permissionAsk(p.request).title;
  return typeof title === 'string' && title ? ` (“${title}”)` : '';
}
