// Every notification and dialog Reins shows goes through here. VS Code draws `[label](command:…)`
// in a notification's message as a link that runs the command when clicked (any command, with
// its arguments; `https:` and `file:` links too), and Reins' messages quote text it did not
// write: an agent's error and stderr, a path it gave, a process it started, an agent's name from
// the settings (a cloned folder's settings may set one). So the message is unlinked first
// (util/text.ts); ESLint forbids `vscode.window.show…Message` anywhere else.
import * as vscode from 'vscode';
import { unlinked } from './util/text';

type Level = 'showInformationMessage' | 'showWarningMessage' | 'showErrorMessage';
type Rest = (string | vscode.MessageOptions)[];

function show(level: Level, message: string, rest: Rest): Thenable<string | undefined> {
  // The options, when given, are the first of `rest`, where VS Code reads them; the buttons follow.
  // One signature for the overloads: tsc cannot pick one for a spread of either (typescript-eslint
  // reads the union of the three as that signature already, tsc does not).
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const fn = vscode.window[level] as (message: string, ...rest: Rest) => Thenable<string | undefined>;
  return fn(unlinked(message), ...rest);
}

export function showInformationMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
export function showInformationMessage<T extends string>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
export function showInformationMessage(message: string, ...rest: Rest): Thenable<string | undefined> {
  return show('showInformationMessage', message, rest);
}

export function showWarningMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
export function showWarningMessage<T extends string>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
export function showWarningMessage(message: string, ...rest: Rest): Thenable<string | undefined> {
  return show('showWarningMessage', message, rest);
}

export function showErrorMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
export function showErrorMessage<T extends string>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
export function showErrorMessage(message: string, ...rest: Rest): Thenable<string | undefined> {
  return show('showErrorMessage', message, rest);
}
