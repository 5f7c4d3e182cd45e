import type { Disposable } from './disposable';

/** A typed event for the core, shaped like vscode.Event so either side can subscribe alike. */
export class Emitter<T> {
  private listeners = new Set<(value: T) => void>();

  readonly event = (listener: (value: T) => void): Disposable => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        // A failing listener must not stop the others, nor the state machine that fired.
        console.error(error);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
