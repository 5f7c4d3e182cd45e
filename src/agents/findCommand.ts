// Finding an agent's command the way the user's own shell would. VS Code started from a desktop
// shortcut (or a remote server started by a service) has a PATH without what nvm, Homebrew,
// pipx, asdf or mise add in shell start-up files, so `claude-agent-acp` installed with nvm's npm
// is not found by `spawn`. When the extension host's PATH has no such command, the user's login
// shell is asked (`$SHELL -ilc 'command -v NAME'`), with a time limit, and the answer is cached.
// No `vscode` here.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

type FoundVia = 'as-given' | 'path' | 'login-shell';

export interface Found {
  /** Absolute path of the executable. */
  path: string;
  via: FoundVia;
  /** The shell that found it (via 'login-shell'). */
  shell?: string;
}

function isExecutableFile(file: string, platform: NodeJS.Platform = process.platform): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A name with no directory part is looked up on PATH; anything else is a path. */
function isBareName(command: string): boolean {
  return !/[\\/]/.test(command);
}

/** `command` on this PATH, as `spawn` would find it (PATHEXT on Windows). */
export function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  const dirs = (env.PATH ?? env.Path ?? '').split(platform === 'win32' ? ';' : ':').filter(Boolean);
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, command + ext);
      if (isExecutableFile(candidate, platform)) return candidate;
    }
  }
  return undefined;
}

/** Names put into the shell line as they are: only these characters, so nothing else runs. */
const SAFE_NAME = /^[A-Za-z0-9._+@-]+$/;
const MARK = '__reins_command__';

interface LoginShellOptions {
  shell: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}

/**
 * Ask one login shell where each name is (a login shell can take a second to start, so one
 * shell answers for all). `-i` as well as `-l`, as VS Code does when it resolves the shell
 * environment: nvm's lines live in ~/.bashrc, which returns early for non-interactive shells.
 * Start-up files may print anything, so each answer is read between markers and only an
 * absolute path to an executable counts (an alias or a function does not).
 */
function lookUpThroughLoginShell(names: string[], o: LoginShellOptions): Promise<Map<string, string | undefined>> {
  const asked = names.filter((n) => SAFE_NAME.test(n));
  const answers = new Map<string, string | undefined>(names.map((n) => [n, undefined]));
  if (asked.length === 0) return Promise.resolve(answers);
  const script = asked.map((n) => `echo ${MARK} ${n}; command -v ${n} 2>/dev/null`).join('; ');
  return new Promise((resolve) => {
    let out = '';
    let done = false;
    const child = spawn(o.shell, ['-i', '-l', '-c', script], {
      // VS Code sets this while it resolves the shell environment; start-up files may skip slow parts.
      env: { ...o.env, VSCODE_RESOLVING_ENVIRONMENT: '1' },
      stdio: ['ignore', 'pipe', 'ignore'],
      // Its own process group, so that a timeout ends whatever the start-up files started.
      detached: process.platform !== 'win32',
    });
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const [name, found] of parseAnswers(out)) if (answers.has(name)) answers.set(name, found);
      resolve(answers);
    };
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      finish();
    }, o.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (out.length < 1_000_000) out += chunk.toString('utf8');
    });
    child.on('error', finish);
    child.on('close', finish);
  });
}

/** The marked answers in a login shell's output: name → absolute executable path. */
export function parseAnswers(output: string): Map<string, string> {
  const found = new Map<string, string>();
  let current: string | undefined;
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith(MARK + ' ')) {
      current = line.slice(MARK.length + 1).trim();
      continue;
    }
    if (current && path.isAbsolute(line) && isExecutableFile(line)) found.set(current, line);
  }
  return found;
}

export interface FinderOptions {
  /** Read at each lookup, so that tests (and a changed environment) are seen. */
  env?: () => NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** How long "not found" is remembered: the user may install it meanwhile. */
  missTtlMs?: number;
  platform?: NodeJS.Platform;
}

interface Cached {
  path: string | undefined;
  shell: string;
  at: number;
}

/** PATH first, then the login shell, with answers cached per shell and name. */
export class CommandFinder {
  private readonly cache = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<Map<string, string | undefined>>>();
  /** How many login shells were started (tests check the cache with it). */
  shellRuns = 0;

  constructor(private readonly options: FinderOptions = {}) {}

  private env(): NodeJS.ProcessEnv {
    return this.options.env?.() ?? process.env;
  }

  /** The shell to ask: $SHELL, else /bin/sh. None on Windows (no login shell to ask). */
  loginShell(): string | undefined {
    const platform = this.options.platform ?? process.platform;
    if (platform === 'win32') return undefined;
    return this.env().SHELL || '/bin/sh';
  }

  async find(command: string): Promise<Found | undefined> {
    return (await this.findMany([command])).get(command);
  }

  async findMany(commands: string[]): Promise<Map<string, Found | undefined>> {
    const platform = this.options.platform ?? process.platform;
    const env = this.env();
    const result = new Map<string, Found | undefined>();
    const missing: string[] = [];
    for (const c of new Set(commands)) {
      if (!isBareName(c)) {
        result.set(c, isExecutableFile(c, platform) ? { path: c, via: 'as-given' } : undefined);
        continue;
      }
      const onPath = findOnPath(c, env, platform);
      if (onPath) result.set(c, { path: onPath, via: 'path' });
      else missing.push(c);
    }
    const shell = this.loginShell();
    if (missing.length === 0 || !shell) {
      for (const c of missing) result.set(c, undefined);
      return result;
    }
    const now = Date.now();
    const missTtl = this.options.missTtlMs ?? 30_000;
    const toAsk: string[] = [];
    for (const c of missing) {
      const hit = this.cache.get(`${shell}\0${c}`);
      // A remembered path is used while it is still there; a miss only for a while.
      if (hit && (hit.path ? isExecutableFile(hit.path, platform) : now - hit.at < missTtl)) {
        result.set(c, hit.path ? { path: hit.path, via: 'login-shell', shell } : undefined);
      } else {
        toAsk.push(c);
      }
    }
    if (toAsk.length > 0) {
      const key = `${shell}\0${toAsk.join('\0')}`;
      let pending = this.inFlight.get(key);
      if (!pending) {
        this.shellRuns++;
        pending = lookUpThroughLoginShell(toAsk, { shell, env, timeoutMs: this.options.timeoutMs ?? 5_000 }).finally(() => this.inFlight.delete(key));
        this.inFlight.set(key, pending);
      }
      const answers = await pending;
      for (const c of toAsk) {
        const p = answers.get(c);
        this.cache.set(`${shell}\0${c}`, { path: p, shell, at: Date.now() });
        result.set(c, p ? { path: p, via: 'login-shell', shell } : undefined);
      }
    }
    return result;
  }
}

/** The finder the extension shares (its cache lives as long as the extension host). */
export const commandFinder = new CommandFinder();
