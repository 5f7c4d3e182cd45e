// Every notification and dialog Reins shows goes through here (a notification only through
// answers.ts, which decides whether the conversation says it instead). VS Code draws `[label](command:…)`
// in a notification's message as a link that runs the command when clicked (any command, with
// its arguments; `https:` and `file:` links too), and Reins' messages quote text it did not
// write: an agent's error and stderr, a path it gave, a process it started, an agent's name from
// the settings (a cloned folder's settings may set one). So the message is unlinked first
// (util/text.ts); ESLint forbids `vscode.window.show…Message` anywhere else.
import * as vscode from 'vscode';
import type { NoticeLevel } from '../shared/messages';
import { unlinked } from '../util/text';

type Level = 'showInformationMessage' | 'showWarningMessage' | 'showErrorMessage';
type Rest = (string | vscode.MessageOptions)[];

const LEVELS: Record<NoticeLevel, Level> = { info: 'showInformationMessage', warning: 'showWarningMessage', error: 'showErrorMessage' };

function show(level: Level, message: string, rest: Rest): Thenable<string | undefined> {
  // The options, when given, are the first of `rest`, where VS Code reads them; the buttons follow.
  // One signature for the overloads: tsc cannot pick one for a spread of either (typescript-eslint
  // reads the union of the three as that signature already, tsc does not).
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const fn = vscode.window[level] as (message: string, ...rest: Rest) => Thenable<string | undefined>;
  return fn(unlinked(message), ...rest);
}

/**
 * A notification: only for what the user cannot see in a conversation. Everything else Reins says
 * goes through answers.ts, which decides between the conversation and this (its Notify port).
 */
export function notification(level: NoticeLevel, message: string, buttons: string[]): Thenable<string | undefined> {
  return show(LEVELS[level], message, buttons);
}

/** A decision the user must make before anything goes on: a modal dialog (Escape is undefined). */
export function askModal<T extends string>(message: string, options: { detail?: string }, ...buttons: T[]): Thenable<T | undefined> {
  return show('showWarningMessage', message, [{ ...options, modal: true }, ...buttons]) as Thenable<T | undefined>;
}
