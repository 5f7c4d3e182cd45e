// What the header and the composer show for a PanelStatus. Pure (no DOM) so the unit
// tests can pin the wording; the DOM modules only copy these strings into elements.
import type { PanelStatus, PanelWhenBusy, PermissionOptionView, PlanItem, ToolStatus } from '../../src/shared/messages';
import { revealInvisibleText } from '../../src/shared/invisibleChars';
import { CHOICE_LABEL } from './busyModel';

type StatusTone = 'ok' | 'busy' | 'attention' | 'warning' | 'error' | 'muted';

export interface StatusLine {
  /** Short phase name; it goes to the screen-reader live region, which must not chatter. */
  label: string;
  /** The visible line: the host's detail when it has one, else the label. */
  text: string;
  tone: StatusTone;
}

export function statusLine(status: PanelStatus): StatusLine {
  const base = phaseLine(status);
  const detail = status.detail?.trim();
  return { ...base, text: detail || base.label };
}

function phaseLine(status: PanelStatus): Omit<StatusLine, 'text'> {
  // An unconfirmed stop outranks everything: the folder is closed to new work until it clears.
  if (status.turn === 'unverified') return { label: 'Stop not confirmed', tone: 'error' };
  switch (status.agent) {
    case 'starting':
      return { label: 'Starting…', tone: 'busy' };
    case 'failed':
      return { label: 'Agent failed', tone: 'error' };
    case 'exited':
      return { label: 'Agent exited', tone: 'muted' };
    case 'untrusted':
      return { label: 'Folder not trusted', tone: 'warning' };
    case 'ready':
      break;
  }
  switch (status.turn) {
    case 'idle':
      // A prompt waiting for another window's turn in the checkout is not "Ready".
      return status.checkoutWait ? { label: 'Waiting…', tone: 'busy' } : { label: 'Ready', tone: 'ok' };
    case 'sending':
      return { label: 'Sending…', tone: 'busy' };
    case 'running':
      // The agent is not working while it waits for the user's answer: the request says what it needs.
      return status.permissionPending || status.waitingOn !== undefined ? { label: 'Waiting for you', tone: 'attention' } : { label: 'Working…', tone: 'busy' };
    case 'stopping':
      return { label: 'Stopping…', tone: 'warning' };
  }
}

/**
 * The panel's one busy indicator (at the end of the transcript): "Working…", "Stopping…
 * waiting for the agent to confirm (cancel sent 1.2 s ago)"; undefined when no turn is busy.
 */
export function busyText(status: PanelStatus): string | undefined {
  if (status.agent !== 'ready') return undefined;
  if (status.turn === 'idle' && status.checkoutWait) return statusLine(status).text;
  if (status.turn !== 'sending' && status.turn !== 'running' && status.turn !== 'stopping') return undefined;
  return statusLine(status).text;
}

export interface ComposerState {
  /** The box refuses typing: no agent to talk to, or an unconfirmed stop. */
  readOnly: boolean;
  placeholder: string;
  /** Tooltip of the Send button. */
  sendTitle: string;
}

export function composerState(status: PanelStatus | undefined): ComposerState {
  if (!status) return { readOnly: true, placeholder: 'Connecting…', sendTitle: 'Send' };
  // A placeholder holds no elements: the name's bidi and zero-width characters as marker text.
  const name = revealInvisibleText(status.agentName || 'the agent');
  if (status.turn === 'unverified') {
    return { readOnly: true, placeholder: 'Stop not confirmed — new prompts are blocked', sendTitle: 'Send' };
  }
  switch (status.agent) {
    // Typing stays possible: a prompt sent now waits for the start (the host shares the start
    // under way), and what is typed while the agent starts is not refused.
    case 'starting':
      return { readOnly: false, placeholder: `Starting ${name}… — Enter sends this once it is ready`, sendTitle: 'Send once started (Enter)' };
    // Typing stays possible: sending starts the agent again (nothing typed is held hostage).
    case 'failed':
      return { readOnly: false, placeholder: `${name} failed to start — Enter tries again with this prompt`, sendTitle: 'Start and send (Enter)' };
    case 'exited':
      return { readOnly: false, placeholder: `${name} has exited — Enter starts it again with this prompt`, sendTitle: 'Start and send (Enter)' };
    case 'untrusted':
      return { readOnly: true, placeholder: 'Trust this folder to start the agent', sendTitle: 'Send' };
    case 'ready':
      break;
  }
  // Waiting for another window: Enter puts the next prompt in line behind the waiting ones.
  if (status.turn === 'idle' && status.checkoutWait) {
    const holder = status.checkoutWait.holder;
    const waiting = holder ? `Waiting for ${revealInvisibleText(holder)} in another window` : 'Waiting to send';
    return {
      readOnly: false,
      placeholder: `${waiting} — Enter sends this after the waiting prompts, Esc gives them back`,
      sendTitle: 'Send after the waiting prompts (Enter)',
    };
  }
  // While a turn runs the box stays editable: Enter still posts, the host decides ("send now").
  if (status.turn === 'idle') {
    return { readOnly: false, placeholder: `Message ${name} — Enter to send, Shift+Enter for a new line`, sendTitle: 'Send (Enter)' };
  }
  const busy = WHILE_BUSY[status.whenBusy];
  return { readOnly: false, placeholder: `${name} is working — ${busy.hint}, Esc stops`, sendTitle: busy.sendTitle };
}

/** What Enter does while a turn runs, in the hint and the Send button's tooltip (reins.whenBusy). */
const WHILE_BUSY: Record<PanelWhenBusy, { hint: string; sendTitle: string }> = {
  ask: { hint: 'Enter to queue, steer or stop and send', sendTitle: 'Send… (Enter)' },
  queue: { hint: 'Enter queues this prompt', sendTitle: `${CHOICE_LABEL.queue} (Enter)` },
  steer: { hint: 'Enter adds this to the running turn', sendTitle: `${CHOICE_LABEL.steer} (Enter)` },
  stopAndSend: { hint: 'Enter stops and sends', sendTitle: `${CHOICE_LABEL.stopAndSend} (Enter)` },
};

/** Text that came back from the host (restoreInput, snapshot.input) merged with the draft. */
export function mergeRestoredInput(current: string, restored: string): string {
  if (!restored) return current;
  if (!current.trim()) return restored;
  // The draft already holds it (e.g. restored before the panel was hidden and shown again).
  if (current.includes(restored)) return current;
  return `${restored}\n\n${current}`;
}

export function toolStatusLabel(status: ToolStatus): string {
  switch (status) {
    case 'pending':
      return 'Pending';
    case 'in_progress':
      return 'Running';
    case 'completed':
      return 'Done';
    case 'failed':
      return 'Failed';
    case 'cancelled':
      return 'Cancelled';
  }
}

export function isAllowOption(option: PermissionOptionView): boolean {
  return option.kind === 'allow_once' || option.kind === 'allow_always';
}

/** "1 of 4 done" ("1 of 4 done, 2 cancelled"); once its turn ended with items undone, "Stopped: 1 of 4 done". */
export function planProgress(items: readonly Pick<PlanItem, 'status'>[]): string {
  const done = items.filter((i) => i.status === 'completed').length;
  const cancelled = items.filter((i) => i.status === 'cancelled').length;
  const count = `${done} of ${items.length} done${cancelled > 0 ? `, ${cancelled} cancelled` : ''}`;
  return items.some((i) => i.status === 'stopped') ? `Stopped: ${count}` : count;
}

/** The collapsed thought's one-line preview: its last non-empty line, minus Markdown punctuation. */
export function thoughtPreview(markdown: string): string {
  for (const raw of markdown.split('\n').reverse()) {
    const line = raw.replace(/^[\s>#*\-+`]+|[*_`]+/g, '').trim();
    if (line) return line.length > 160 ? `…${line.slice(-160)}` : line;
  }
  return '';
}
