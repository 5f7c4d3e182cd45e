// Sign-in for the scripted agent (the scenario's `auth` block): the methods advertised in
// `initialize`, auth_required (-32000) at session/new or at prompts until signed in, and the
// three ways to sign in: an `authenticate` with an accepted method id, an environment variable
// set when the process starts, or a login file that the terminal login (`--login`) writes.
import { createHash } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import type { Id, Peer, RpcError } from './peer';
import type { Recorder } from './recorder';
import { isObj } from './scenarioCheck';

export interface AuthOptions {
  /** `authMethods` in the initialize result, as given. */
  methods: unknown[];
  /** Where auth_required is answered: `session` (session/new, default) or `prompt`. */
  at?: 'session' | 'prompt';
  /**
   * A sign-in that expires: after this many session/new, the login file is removed and the next
   * session/new (and every start after) is refused until the user signs in again. Once per process.
   */
  sessionsBeforeExpiry?: number;
  /** Signed in when this variable is set (not empty) in the process's environment. */
  envVar?: string;
  /** Method ids whose `authenticate` succeeds (others: -32602). */
  accept?: string[];
  /** Signed in when this file exists at start; `--login` writes it. */
  loginFile?: string;
  /** `--login`'s exit code (default 0). */
  loginExitCode?: number;
}

const AUTH_REQUIRED: RpcError = { code: -32000, message: 'Authentication required' };

/** A hash, so that a test can check the value arrived without the record holding it. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export class AuthGate {
  private signedIn: boolean;
  /** session/new asked while signed in (for `sessionsBeforeExpiry`). */
  private sessions = 0;

  constructor(
    private readonly options: AuthOptions,
    private readonly rec: Recorder,
    env: NodeJS.ProcessEnv,
  ) {
    const value = options.envVar ? env[options.envVar] : undefined;
    const byEnv = value !== undefined && value !== '';
    const byFile = options.loginFile !== undefined && existsSync(options.loginFile);
    if (options.envVar) rec.event('auth-env', { name: options.envVar, present: byEnv, sha256: byEnv ? sha256(value) : undefined });
    this.signedIn = byEnv || byFile;
    rec.event('auth-state', { signedIn: this.signedIn, byEnv, byFile });
  }

  get methods(): unknown[] {
    return this.options.methods;
  }

  /** The error for a request at `where` while not signed in, else undefined. */
  refuse(where: 'session' | 'prompt'): RpcError | undefined {
    const expiry = this.options.sessionsBeforeExpiry;
    if (where === 'session' && expiry !== undefined && this.signedIn && this.sessions++ === expiry) {
      this.signedIn = false;
      if (this.options.loginFile) rmSync(this.options.loginFile, { force: true });
      this.rec.event('auth-expired', { after: expiry });
    }
    if (this.signedIn || (this.options.at ?? 'session') !== where) return undefined;
    this.rec.event('auth-required', { at: where });
    return AUTH_REQUIRED;
  }

  authenticate(id: Id, params: unknown, peer: Peer): void {
    const methodId = isObj(params) ? params.methodId : undefined;
    if (typeof methodId !== 'string' || !(this.options.accept ?? []).includes(methodId)) {
      this.rec.event('authenticate-refused', { methodId });
      return peer.fail(id, { code: -32602, message: 'Invalid params', data: `unknown or unsupported method ${JSON.stringify(methodId)}` });
    }
    this.signedIn = true;
    this.rec.event('authenticated', { methodId });
    peer.respond(id, {});
  }
}

/** `--login`: what a terminal sign-in runs. Writes the login file, says so, exits. */
export function runLogin(options: AuthOptions | undefined, rec: Recorder): never {
  rec.event('login', { loginFile: options?.loginFile });
  if (options?.loginFile) writeFileSync(options.loginFile, `signed in at ${new Date().toISOString()}\n`);
  process.stdout.write('Signed in to the Reins scripted agent.\n');
  process.exit(options?.loginExitCode ?? 0);
}
