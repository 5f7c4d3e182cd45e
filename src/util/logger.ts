// The logging surface the core uses. A vscode LogOutputChannel satisfies it as is, so the
// core (everything under acp/ and session/) can log without importing `vscode`, and tests
// can hand it a logger that collects lines.
export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
}

/** A logger that drops everything: for tests and tools that do not care. */
export const silentLogger: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** A logger that keeps its lines in memory, for tests that assert on what was logged. */
export class MemoryLogger implements Logger {
  readonly lines: string[] = [];
  trace(m: string) {
    this.lines.push(`trace ${m}`);
  }
  debug(m: string) {
    this.lines.push(`debug ${m}`);
  }
  info(m: string) {
    this.lines.push(`info ${m}`);
  }
  warn(m: string) {
    this.lines.push(`warn ${m}`);
  }
  error(m: string | Error) {
    this.lines.push(`error ${m instanceof Error ? m.message : m}`);
  }
}
