// The agent's elicitations in the transcript: each as an entry (inside its tool call's card
// when it names one that is shown), updated when it is answered, withdrawn or completed. One
// that cannot be shown is answered `cancel` at once and said, as a permission is.
import type { ElicitationEntry } from '../shared/messages';
import { describeUrl } from '../shared/elicitationUrl';
import { DisposableStore, type Disposable } from '../util/disposable';
import type { AgentRuntime } from './agentRuntime';
import type { PendingElicitation } from './elicitations';
import type { Transcript } from './transcript';

const ANSWERED: Record<'accept' | 'decline' | 'cancel', string> = { accept: 'Submitted', decline: 'Declined', cancel: 'Cancelled' };

export function feedElicitations(rt: AgentRuntime, transcript: Transcript, generation: () => number): Disposable {
  const d = new DisposableStore();
  const shown = new Map<string, 'form' | 'url'>();
  d.add(
    rt.turns.elicitations.onRequest((p) => {
      const entry = entryFor(p, rt.name, transcript, generation());
      if (typeof entry === 'string') {
        transcript.notice('warning', `${rt.name} asked you something, but Reins cannot show it (${entry}), so it answered “cancel”.`);
        rt.turns.elicitations.refuse(p.id, entry);
        return;
      }
      shown.set(p.id, p.request.mode);
      transcript.upsert(entry);
    }),
  );
  d.add(
    rt.turns.elicitations.onResolved(({ id, action, withdrawn, unshown }) => {
      const mode = shown.get(id);
      const entry = transcript.get(id);
      if (mode === undefined || entry?.kind !== 'elicitation') return;
      // An opened URL stays known until the agent completes it (or nothing more is said).
      if (!(mode === 'url' && action === 'accept')) shown.delete(id);
      const resolved = withdrawn
        ? 'Withdrawn by the agent'
        : unshown !== undefined
          ? `Cancelled: the panel could not show it (${unshown})`
          : mode === 'url' && action === 'accept'
            ? 'Opened in your browser'
            : ANSWERED[action];
      transcript.upsert({ ...entry, resolved });
    }),
  );
  d.add(
    rt.turns.elicitations.onCompleted((id) => {
      const entry = transcript.get(id);
      shown.delete(id);
      if (entry?.kind !== 'elicitation') return;
      const opened = entry.resolved === 'Opened in your browser';
      transcript.upsert({
        ...entry,
        completed: true,
        resolved: opened ? 'Opened in your browser: the agent says it is done' : 'Closed: the agent says it is done',
      });
    }),
  );
  return d;
}

/** The entry for `p`, or why it cannot be shown. */
function entryFor(p: PendingElicitation, agentName: string, transcript: Transcript, generation: number): ElicitationEntry | string {
  if (transcript.get(p.id)) return `its id ${p.id} is taken by another entry of the transcript`;
  const { request } = p;
  const scope = request.scope;
  const card = 'sessionId' in scope && scope.toolCallId !== undefined ? transcript.cardId(scope.sessionId, scope.toolCallId, generation) : undefined;
  const base: ElicitationEntry = {
    kind: 'elicitation',
    id: p.id,
    agentName,
    message: request.message,
    mode: request.mode,
    ...(card !== undefined && transcript.get(card)?.kind === 'tool' && { toolCallId: card }),
    ...('requestId' in scope && { outsideSession: true as const }),
  };
  if (request.mode === 'form') return { ...base, form: request.form };
  const url = describeUrl(request.url);
  return url ? { ...base, url } : 'its address is not an http or https URL';
}
