// Signing in to an agent that refused with auth_required (-32000) at `session/new` or at a
// prompt. The panel says so and offers the agent's methods (a notice with a button per method, or
// *Sign In…* when there are many; a notification too while the conversation is out of sight);
// nothing is authenticated until the user chooses:
//   agent     `authenticate` on the running connection, or before `session/new` on a restart
//   env_var   the values asked for (password boxes for secrets), kept in SecretStorage
//             (secrets.ts) and passed in the agent's environment on every start; then a restart
//   terminal  the agent's own command plus the method's args in a VS Code terminal; when that
//             terminal closes with exit status 0, the agent is restarted (ACP: "reconnect")
import * as vscode from 'vscode';
import type { PreparedLaunch } from '../agents/launch';
import { loadMachinery } from '../runtime/machineryLoader';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { Transcript } from '../runtime/transcript';
import type { NoticeAction, NoticeLevel } from '../shared/messages';
import { describeMethod, parseAuthMethods, signInNeededText, type SignInMethod } from './methods';
import { agentSecrets } from '../agents/secrets';

/** What a sign-in needs of its folder conversation. */
export interface SignInHost {
  readonly folder: vscode.WorkspaceFolder;
  readonly agentName: string;
  readonly runtime: AgentRuntime | undefined;
  readonly transcript: Transcript;
  /** Tells the user: the notice, and a notification while the conversation is out of sight (answers.ts). */
  say(level: NoticeLevel, text: string, actions?: NoticeAction[]): void;
  /** Restart the agent (through the stop routine), so that it starts with what was just stored. */
  restartAgent(): Promise<boolean>;
  /** How the agent is started now (command, args, env with the stored values): for a terminal login. */
  prepareLaunch(): Promise<PreparedLaunch>;
}

/** Up to this many methods are a button each; more are one *Sign In…*, which lists them all. */
const MAX_BUTTONS = 3;

export class SignIn {
  /** The methods the agent advertised, kept from the `initialize` of the start that was refused. */
  private methods: SignInMethod[] = [];
  /** Set while the agent refuses: what `sendPrompt` says. */
  private neededText: string | undefined;
  private authenticateNext: string | undefined;
  private busy = false;

  constructor(
    private readonly host: SignInHost,
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** "goose needs you to sign in. Methods: …" while the agent refuses, else undefined. */
  get needed(): string | undefined {
    return this.neededText;
  }

  /** The `authenticate` the user chose for the next start (consumed once). */
  takeAuthenticate(): string | undefined {
    const id = this.authenticateNext;
    this.authenticateNext = undefined;
    return id;
  }

  /** The agent started and has a session: nothing is needed any more. */
  started(): void {
    this.neededText = undefined;
  }

  /**
   * The agent refused with auth_required: say so (answers.ts: the panel, a notification too while
   * it is out of sight), offer its methods, and wait for the user. `rawMethods`: initialize's `authMethods`.
   */
  offer(where: 'start' | 'prompt', rawMethods: unknown, agentMessage?: string): string {
    const agent = this.host.agentName;
    this.methods = parseAuthMethods(rawMethods);
    const text = signInNeededText(agent, this.methods);
    this.neededText = text;
    this.log.warn(
      `agent ${agent}: sign-in needed (refused at ${where === 'start' ? 'session/new' : 'a prompt'}${agentMessage ? `: ${agentMessage}` : ''}); methods offered: ${this.methods.map((m) => `${m.id} (${m.type})`).join(', ') || 'none'}`,
    );
    const actions: NoticeAction[] =
      this.methods.length === 0
        ? [{ action: 'restartAgent', label: 'Restart Agent' }]
        : this.methods.length <= MAX_BUTTONS
          ? this.methods.map((m) => ({ action: 'signIn', label: m.name, arg: m.id }))
          : [{ action: 'signIn', label: 'Sign In…' }];
    this.host.say('warning', where === 'prompt' ? `${text} Your prompt is back in the input box.` : text, [
      ...actions,
      { action: 'openLog', label: 'Open Log' },
    ]);
    return text;
  }

  /** *Reins: Sign In…* and the panel's button: the method named, or one the user picks. */
  async choose(methodId?: string): Promise<boolean> {
    const methods = this.methods.length > 0 ? this.methods : parseAuthMethods(this.host.runtime?.agentInfo?.authMethods);
    if (methods.length === 0) {
      this.host.say('info', `${this.host.agentName} advertises no sign-in method Reins can use.`);
      return false;
    }
    let method = methods.find((m) => m.id === methodId);
    if (!method) {
      const picked = await vscode.window.showQuickPick(
        methods.map((m) => ({ label: m.name, description: describeMethod(m).slice(m.name.length).trim(), detail: m.description, method: m })),
        { title: `Reins: sign in to ${this.host.agentName}`, placeHolder: 'How do you want to sign in?', ignoreFocusOut: true },
      );
      if (!picked) return false;
      method = picked.method;
    }
    return this.run(method);
  }

  private async run(m: SignInMethod): Promise<boolean> {
    if (this.busy) return false;
    this.busy = true;
    try {
      this.log.info(`agent ${this.host.agentName}: the user chose sign-in method ${m.id} (${m.type})`);
      switch (m.type) {
        case 'env_var':
          return await this.withValues(m);
        case 'terminal':
          return await this.inTerminal(m);
        case 'agent':
          return await this.byAgent(m);
      }
    } catch (error) {
      // A JSON-RPC error's data says more than its message ("Invalid params").
      const data: unknown = error instanceof loadMachinery().ResponseError ? error.data : undefined;
      const message = `${error instanceof Error ? error.message : String(error)}${data !== undefined ? `: ${typeof data === 'string' ? data : JSON.stringify(data)}` : ''}`;
      this.log.error(`agent ${this.host.agentName}: sign-in with ${m.id} failed: ${message}`);
      this.host.transcript.notice('error', `Sign-in with "${m.name}" failed: ${message}`, [
        { action: 'signIn', label: 'Sign In…' },
        { action: 'openLog', label: 'Open Log' },
      ]);
      return false;
    } finally {
      this.busy = false;
    }
  }

  /** Ask for each variable, store them, restart: the agent reads them from its environment. */
  private async withValues(m: Extract<SignInMethod, { type: 'env_var' }>): Promise<boolean> {
    const values: Record<string, string> = {};
    for (const v of m.vars) {
      const value = await vscode.window.showInputBox({
        title: `Reins: sign in to ${this.host.agentName} — ${m.name}`,
        prompt: `${v.label ?? v.name}${v.optional ? ' (optional)' : ''}${m.link ? `. Get one at ${m.link}` : ''}. Kept in VS Code's secret storage; passed to ${this.host.agentName} as ${v.name}.`,
        placeHolder: v.name,
        password: v.secret,
        ignoreFocusOut: true,
        validateInput: (s) => (v.optional || s.trim() !== '' ? undefined : `${v.name} is needed`),
      });
      if (value === undefined) return false; // Escape: nothing is stored
      if (value.trim() !== '') values[v.name] = value.trim();
    }
    await agentSecrets(this.context).set(this.host.agentName, values);
    // Names only: the values are never logged.
    this.log.info(`agent ${this.host.agentName}: stored ${Object.keys(values).join(', ')} in VS Code's secret storage; restarting the agent with them`);
    this.host.transcript.notice(
      'info',
      `Saved ${Object.keys(values).join(', ')} for ${this.host.agentName} in VS Code's secret storage. Restarting ${this.host.agentName} with ${Object.keys(values).length > 1 ? 'them' : 'it'}…`,
    );
    return this.host.restartAgent();
  }

  /** `authenticate` now if the agent runs (a prompt was refused), else before the next session/new. */
  private async byAgent(m: Extract<SignInMethod, { type: 'agent' }>): Promise<boolean> {
    const rt = this.host.runtime;
    if (rt && rt.phase === 'ready') {
      await rt.authenticate(m.id);
      this.neededText = undefined;
      this.host.transcript.notice('info', `Signed in to ${this.host.agentName} with "${m.name}". Send your prompt again.`);
      return true;
    }
    this.authenticateNext = m.id;
    return this.host.restartAgent();
  }

  /** The agent's own command with the method's arguments, in a terminal; reconnect when it closes with 0. */
  private async inTerminal(m: Extract<SignInMethod, { type: 'terminal' }>): Promise<boolean> {
    const prepared = await this.host.prepareLaunch();
    if (!prepared.ok) throw new Error(prepared.message);
    const { launch } = prepared;
    const terminal = vscode.window.createTerminal({
      name: `Reins: sign in to ${this.host.agentName}`,
      shellPath: launch.command,
      shellArgs: [...launch.args, ...m.args],
      cwd: launch.cwd,
      // The method's variables override the launch's (ACP: "overriding any same-named variables").
      env: { ...launch.env, ...m.env },
    });
    terminal.show();
    this.log.info(`agent ${this.host.agentName}: sign-in in a terminal: ${launch.command} ${[...launch.args, ...m.args].join(' ')}`);
    this.host.transcript.notice('info', `Sign in to ${this.host.agentName} in the terminal "${terminal.name}". Reins reconnects when it closes.`);
    const code = await new Promise<number | undefined>((resolve) => {
      const sub = vscode.window.onDidCloseTerminal((t) => {
        if (t !== terminal) return;
        sub.dispose();
        resolve(t.exitStatus?.code);
      });
    });
    if (code !== 0) {
      // ACP: a non-zero status, no status, or a cancel is a failed sign-in.
      const how = code === undefined ? 'was closed before the login finished' : `ended with exit code ${code}`;
      this.log.warn(`agent ${this.host.agentName}: the sign-in terminal ${how}`);
      this.host.transcript.notice('warning', `The sign-in terminal ${how}; ${this.host.agentName} was not reconnected.`, [
        { action: 'signIn', label: 'Sign In…' },
      ]);
      return false;
    }
    this.host.transcript.notice('info', `Sign-in finished. Reconnecting ${this.host.agentName}…`);
    return this.host.restartAgent();
  }
}
