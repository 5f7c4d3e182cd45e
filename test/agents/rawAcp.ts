// A bare ACP client for measuring an agent's wire behaviour exactly (measureOutOfStep.entry.ts):
// newline-delimited JSON-RPC over the agent's stdio, every message in and out kept with its
// time, no Reins logic in between. The agent runs in its own process group so that a restart
// can end its whole tree. Permission requests are answered by `onPermission`.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { descendantsNow, signalAll } from '../../src/acp/processTree';

export interface WireEvent {
  at: number;
  dir: '→' | '←';
  msg: any;
}

export class RawAcp {
  readonly wire: WireEvent[] = [];
  readonly child: ChildProcessWithoutNullStreams;
  private seq = 0;
  private readonly pending = new Map<number, (m: any) => void>();
  onPermission: (params: any) => any = (p) => ({ outcome: { outcome: 'selected', optionId: p.options.find((o: any) => o.kind === 'allow_once')?.optionId } });

  constructor(command: string, args: string[], env: Record<string, string>, cwd: string) {
    this.child = spawn(command, args, { cwd, env: { ...process.env, ...env }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.resume();
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      let msg: any;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      this.wire.push({ at: Date.now(), dir: '←', msg });
      if (msg.id !== undefined && msg.method === undefined) {
        this.pending.get(msg.id)?.(msg);
        this.pending.delete(msg.id);
      } else if (msg.method === 'session/request_permission') {
        this.send({ jsonrpc: '2.0', id: msg.id, result: this.onPermission(msg.params) });
      } else if (msg.id !== undefined) {
        this.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `not served: ${msg.method}` } });
      }
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  private send(msg: object): void {
    this.wire.push({ at: Date.now(), dir: '→', msg });
    this.child.stdin.write(JSON.stringify(msg) + '\n');
  }

  /** Sends a request; resolves with the whole response message (result or error) and its time. */
  request(method: string, params: object): Promise<{ msg: any; ms: number; sentAt: number }> {
    const id = this.seq++;
    const sentAt = Date.now();
    const answered = new Promise<any>((resolve) => this.pending.set(id, resolve));
    this.send({ jsonrpc: '2.0', id, method, params });
    return answered.then((msg) => ({ msg, ms: Date.now() - sentAt, sentAt }));
  }

  notify(method: string, params: object): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** session/update notifications received in [from, to), of `sessionId` if given. */
  updates(from: number, to = Infinity, sessionId?: string): { at: number; update: any }[] {
    return this.wire
      .filter((e) => e.dir === '←' && e.msg.method === 'session/update' && e.at >= from && e.at < to)
      .filter((e) => sessionId === undefined || e.msg.params.sessionId === sessionId)
      .map((e) => ({ at: e.at, update: e.msg.params.update }));
  }

  /** The text of agent_message_chunks received in [from, to), of `sessionId` if given. */
  text(from: number, to = Infinity, sessionId?: string): string {
    return this.updates(from, to, sessionId)
      .filter((u) => u.update.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.update.content?.text ?? '')
      .join('');
  }

  /** Ends the whole tree as Reins does: the group, and every descendant listed first (Claude
   *  Code runs each Bash tool in a process group of its own, which a group kill misses). */
  async kill(): Promise<void> {
    const tree = (await descendantsNow(this.pid)).map((p) => p.pid);
    const exited = new Promise<void>((r) => (this.child.exitCode !== null || this.child.signalCode !== null ? r() : this.child.once('exit', () => r())));
    for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
      try {
        process.kill(-this.pid, sig);
      } catch {
        // gone
      }
      if (await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 1500))])) break;
    }
    try {
      process.kill(-this.pid, 'SIGKILL'); // what the agent left in its group
    } catch {
      // nothing left
    }
    signalAll(tree, 'SIGKILL');
  }
}
