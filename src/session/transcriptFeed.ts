// The host transcript listens to the runtime directly: the agent's updates, the prompt at the
// start of each turn, the tools a stop cancelled, live terminal output in its card, permission
// requests and how each was answered. What the user is *told* (notices about stops, exits,
// sign-in) stays with the folder session, which decides it.
import type { AgentRuntime } from './agentRuntime';
import { LateUpdates } from './lateUpdates';
import { showTerminalOutput } from './terminalCards';
import type { Transcript } from './transcript';
import { DisposableStore, type Disposable } from '../util/disposable';

export function feedTranscript(rt: AgentRuntime, transcript: Transcript): Disposable {
  const d = new DisposableStore();
  // Which turn an update speaks for: a stopped turn's late ones go to that turn, labelled late.
  const late = new LateUpdates();
  d.add(transcript.onOp((op) => op.type === 'reset' && late.reset()));
  d.add(rt.onUpdate((n) => transcript.apply(n, late.place(n.update))));
  // After the line above: a terminal's live output goes into the card the update just made.
  d.add(showTerminalOutput(rt, transcript));
  d.add(rt.onTurnStarted(({ turnId, text }) => late.turnStarted(turnId, transcript.user(text))));
  d.add(
    rt.onTurnEnded(({ turnId, result }) => {
      late.turnEnded(turnId, result.kind === 'stopped');
      if (result.kind === 'failed') transcript.planEnded();
    }),
  );
  // A stop's end, once confirmed (also when it was unconfirmed first): the plan's unfinished items stopped.
  d.add(rt.onStop((report) => report.outcome !== 'abort-unverified' && transcript.planEnded()));
  d.add(rt.onToolsCancelled(() => transcript.markToolsCancelled()));
  d.add(rt.onPermission((p) => transcript.permission(p)));
  d.add(
    rt.onPermissionResolved(({ id, optionId, cancelled, withdrawn }) => {
      const entry = transcript.get(id);
      if (entry?.kind !== 'permission') return;
      const chosen = entry.options.find((o) => o.optionId === optionId)?.name;
      transcript.upsert({ ...entry, resolved: withdrawn ? 'withdrawn by the agent' : cancelled ? 'cancelled' : (chosen ?? optionId) });
    }),
  );
  return d;
}
