/** A promise with its resolve and reject in reach, settled at most once. */
export class Deferred<T> {
  readonly promise: Promise<T>;
  private _settled = false;
  private _resolve!: (value: T) => void;
  private _reject!: (error: unknown) => void;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this._resolve = resolve;
      this._reject = reject;
    });
  }

  get settled(): boolean {
    return this._settled;
  }

  resolve(value: T): void {
    if (this._settled) return;
    this._settled = true;
    this._resolve(value);
  }

  reject(error: unknown): void {
    if (this._settled) return;
    this._settled = true;
    this._reject(error);
  }
}
