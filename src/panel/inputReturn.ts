// Nothing typed is lost: text that did not reach a running turn goes back to the input box,
// with the files attached to it, at once if the panel shows, else when it next does.
import * as vscode from 'vscode';
import type { FileMatch, GivenBack } from '../shared/messages';
import { joinPending } from '../shared/givenBack';

export class InputReturn implements vscode.Disposable {
  private pending: GivenBack | undefined;
  private lastValue: string | undefined;
  private readonly _onReturn = new vscode.EventEmitter<GivenBack>();
  /** Text to put back into the input box now (the panel host posts it if the webview is ready). */
  readonly onReturn = this._onReturn.event;

  /** The last text given back (for the API and tests). */
  get last(): string | undefined {
    return this.lastValue;
  }

  giveBack(text: string, files?: FileMatch[]): void {
    this.lastValue = text;
    const given: GivenBack = { text, ...(files?.length && { files }) };
    // Several may come back before the panel shows (a stopped turn's prompt, then the prompts
    // queued behind it): each joins the text still waiting, none replaces it.
    this.pending = joinPending(this.pending, given);
    this._onReturn.fire(given);
  }

  /** Text (and its files) waiting to go back into the input box when the panel next shows. */
  take(): GivenBack | undefined {
    const text = this.pending;
    this.pending = undefined;
    return text;
  }

  /** For the panel host: the text reached the input box, forget it. */
  delivered(): void {
    this.pending = undefined;
  }

  dispose(): void {
    this._onReturn.dispose();
  }
}
