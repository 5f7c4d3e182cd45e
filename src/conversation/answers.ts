// Where Reins answers the user: the one rule, and the one place that applies it. What the user did
// in the conversation (a button, a picker opened from it, a command while it is on screen) is
// answered in the conversation, as a notice with the buttons that help: in code-server a
// notification is only a dot on the bell, and on the desktop a toast that fades, so an answer
// there is an answer missed. A notification is for what the user cannot see: the conversation is
// hidden or closed (its notice still waits in the transcript), or there is no conversation at all
// (no folder open). A decision is neither: it is a modal dialog (notify.ts's askModal).
// No `vscode` here: the unit tests drive the rule and the class with the real Transcript.
import type { NoticeAction, NoticeLevel, PanelAction, TranscriptEntry } from '../shared/messages';
import type { Transcript } from '../runtime/transcript';
import { firstLine } from '../util/text';

/** Where one answer goes: a notice in the conversation, a notification, or both. */
export interface AnswerRoute {
  notice: boolean;
  notification: boolean;
}

/**
 * The rule. `conversation`: the answer belongs to a folder's conversation (there is a transcript to
 * write it in); `inSight`: that conversation is on screen now (its editor tab or the Reins view
 * visible).
 */
export function answerRoute(where: { conversation: boolean; inSight: boolean }): AnswerRoute {
  if (!where.conversation) return { notice: false, notification: true };
  // The notice is written either way: the conversation keeps what was said, and shows it when the user comes back.
  return { notice: true, notification: !where.inSight };
}

/** A notification with these button labels, resolving with the one clicked (notify.ts's, in the editor). */
export type Notify = (level: NoticeLevel, text: string, buttons: string[]) => PromiseLike<string | undefined>;

export interface AnswerPorts {
  /** The conversation's transcript; undefined: no conversation (a notification only). */
  readonly transcript?: Transcript;
  /** The conversation is on screen now. Read when each answer is given, never kept. */
  inSight(): boolean;
  notify: Notify;
  /** Runs a button's action, the same for the notice's button and the notification's. */
  act(action: NoticeAction): void;
}

/** One folder's answers (or the window's, without a transcript): said where the rule puts them. */
export class Answers {
  constructor(private readonly ports: AnswerPorts) {}

  /**
   * Says `text` with `actions` as its buttons. Returns the notice's id when one was written. A
   * notification gets the text's first line (a start failure quotes the agent's stderr below it)
   * and runs the clicked button's action.
   */
  say(level: NoticeLevel, text: string, actions: NoticeAction[] = []): string | undefined {
    const transcript = this.ports.transcript;
    const route = answerRoute({ conversation: transcript !== undefined, inSight: transcript !== undefined && this.ports.inSight() });
    const id = route.notice ? transcript?.notice(level, text, actions.length > 0 ? actions : undefined) : undefined;
    if (route.notification) {
      void this.ports.notify(level, fromReins(firstLine(text)), [...new Set(actions.map((a) => a.label))]).then((label) => {
        const chosen = label === undefined ? undefined : actions.find((a) => a.label === label);
        if (chosen) this.ports.act(chosen);
      });
    }
    return id;
  }
}

/** A notification says who speaks ("Reins: …"), once: "Reins needs a folder" is left as it is. */
function fromReins(text: string): string {
  return /^Reins\b/.test(text) ? text : `Reins: ${text}`;
}

/**
 * A notice of the conversation offers `action` with exactly `arg`. The webview's messages are
 * checked (webviewInput.ts) but its `arg` is its word: an action with an argument runs only when
 * a notice offered that button, so a webview cannot make *Run Install in Terminal* run another
 * agent's install command, or sign in with a method no notice offered.
 */
export function offersAction(entries: readonly TranscriptEntry[], action: PanelAction, arg: string): boolean {
  return entries.some((e) => e.kind === 'notice' && e.actions?.some((a) => a.action === action && a.arg === arg) === true);
}
