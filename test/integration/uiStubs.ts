// Answering VS Code's own dialogs in the real extension host: a test file under the extension's
// folder gets the same `vscode` API object as the extension, so replacing `vscode.window`'s
// functions for one test makes Reins's notifications, input boxes and pickers answer as a
// person would. Each replacement records its calls and is put back after the test.
import * as vscode from 'vscode';
import { present } from '../support/helpers';

type WindowFn = 'showWarningMessage' | 'showErrorMessage' | 'showInformationMessage' | 'showInputBox' | 'showQuickPick' | 'createQuickPick';

export interface Stubbed {
  /** The arguments of every call, per function. */
  calls: Record<string, unknown[][]>;
  restore(): void;
}

/** Replace some `vscode.window` functions; `impl` gets the call's arguments and the original. */
export function stubWindow(impls: Partial<Record<WindowFn, (args: unknown[], original: (...a: unknown[]) => unknown) => unknown>>): Stubbed {
  const win = vscode.window as unknown as Record<string, (...a: unknown[]) => unknown>;
  const saved: [string, (...a: unknown[]) => unknown][] = [];
  const calls: Record<string, unknown[][]> = {};
  for (const [name, impl] of Object.entries(impls)) {
    const original = present(win[name], `vscode.window.${name}`);
    saved.push([name, original]);
    const mine: unknown[][] = (calls[name] = []);
    win[name] = (...args: unknown[]) => {
      mine.push(args);
      return impl(args, original.bind(vscode.window));
    };
  }
  return {
    calls,
    restore: () => {
      for (const [name, original] of saved) win[name] = original;
    },
  };
}

/** Messages of one kind whose text matches, as shown (text, then the button labels). */
export function shown(s: Stubbed, fn: WindowFn, pattern: RegExp): unknown[][] {
  return (s.calls[fn] ?? []).filter((args) => typeof args[0] === 'string' && pattern.test(args[0]));
}
