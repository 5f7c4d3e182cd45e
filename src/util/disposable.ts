// A minimal Disposable and a list of them, for the core that cannot import `vscode`.
// vscode.Disposable is structurally the same, so either kind can go into a DisposableStore.
export interface Disposable {
  dispose(): unknown;
}

export class DisposableStore implements Disposable {
  private items: Disposable[] = [];
  private disposed = false;

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      item.dispose();
    } else {
      this.items.push(item);
    }
    return item;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    // Last in, first out: what was built on top goes first.
    for (const item of this.items.reverse()) {
      try {
        item.dispose();
      } catch {
        // One failing disposal must not keep the others alive.
      }
    }
    this.items = [];
  }
}
