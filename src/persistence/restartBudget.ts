// How often an agent that crashed is started again without asking: at most `max` times within
// `windowMs`, as vscode-languageclient's default error handler does (4 restarts in 3 minutes;
// the fifth crash in that time asks the user instead). Pure: the clock is handed in.

const DEFAULT_MAX_RESTARTS = 4;
const DEFAULT_RESTART_WINDOW_MS = 3 * 60_000;

export class RestartBudget {
  private times: number[] = [];

  constructor(
    readonly max = DEFAULT_MAX_RESTARTS,
    readonly windowMs = DEFAULT_RESTART_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Restarts taken within the window up to now. */
  get used(): number {
    this.forgetOld();
    return this.times.length;
  }

  /** One restart, if the budget has one left now; false means ask the user. */
  take(): boolean {
    this.forgetOld();
    if (this.times.length >= this.max) return false;
    this.times.push(this.now());
    return true;
  }

  /** The user chose to restart (or the agent was replaced): the count starts again. */
  reset(): void {
    this.times = [];
  }

  private forgetOld(): void {
    const t = this.now();
    this.times = this.times.filter((at) => t - at < this.windowMs);
  }
}
