import type { Disposable } from './disposable';

/** A typed event for the core, shaped like vscode.Event so either side can subscribe alike. */
export class Emitter<T> {
  private listeners = new Set<(value: T) => void>();

  readonly event = (listener: (value: T) => void): Disposable => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(value: T): void {
    // The one listener, or a copy of them all: a listener added or removed while firing changes
    // the next fire only. The copy is not made for one (the hot path: the transcript's one
    // subscriber, per streamed chunk).
    if (this.listeners.size === 1) {
      const [only] = this.listeners;
      return call(only!, value);
    }
    for (const listener of [...this.listeners]) call(listener, value);
  }

  dispose(): void {
    this.listeners.clear();
  }
}

function call<T>(listener: (value: T) => void, value: T): void {
  try {
    listener(value);
  } catch (error) {
    // A failing listener must not stop the others, nor the state machine that fired.
    console.error(error);
  }
}
