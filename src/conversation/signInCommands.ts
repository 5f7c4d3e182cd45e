// *Reins: Sign In…* and *Reins: Sign Out*. Sign In offers the current agent's methods (the
// panel's button does the same). Sign Out forgets the values stored for one agent or for all;
// an agent that is running keeps them until it restarts, and the panel says so.
import * as vscode from 'vscode';
import type { Conversations } from './conversations';
import { agentSecrets } from '../agents/secrets';

/** `reins.signOut`'s argument for every agent. */
const ALL_AGENTS = '*';

export function registerSignInCommands(reins: Conversations, context: vscode.ExtensionContext): vscode.Disposable[] {
  const store = agentSecrets(context);
  return [
    vscode.commands.registerCommand('reins.signIn', async (methodId?: unknown): Promise<boolean> => {
      const s = reins.conversation();
      if (!s) return false;
      if (!reins.hasPanel(s)) reins.openPanel(s.folder);
      return s.signIn.choose(typeof methodId === 'string' ? methodId : undefined);
    }),
    // Resolves with the agents whose stored values were forgotten.
    vscode.commands.registerCommand('reins.signOut', async (agent?: unknown): Promise<string[]> => {
      let which = typeof agent === 'string' ? agent : undefined;
      if (which === undefined) {
        const names = store.agents();
        if (names.length === 0) {
          reins.say(reins.activeConversation(), 'info', 'No sign-in values are stored.');
          return [];
        }
        const picked = await vscode.window.showQuickPick(
          [
            ...names.map((n) => ({ label: n, description: 'forget its stored values', name: n })),
            { label: 'All agents', description: names.join(', '), name: ALL_AGENTS },
          ],
          { title: 'Reins: sign out', placeHolder: 'Forget the values stored for…' },
        );
        if (!picked) return [];
        which = picked.name;
      }
      const forgotten = which === ALL_AGENTS ? await store.clearAll() : (await store.clear(which)) ? [which] : [];
      if (forgotten.length === 0) return [];
      reins.log.info(`signed out: forgot the stored sign-in values of ${forgotten.join(', ')}`);
      for (const s of reins.allConversations()) {
        if (!forgotten.includes(s.agentName) || !s.runtime) continue;
        s.transcript.notice('info', `Forgot the sign-in values stored for ${s.agentName}. The running agent keeps them until it restarts.`, [
          { action: 'restartAgent', label: 'Restart Agent' },
        ]);
      }
      reins.say(reins.activeConversation(), 'info', `Signed out of ${forgotten.join(', ')}.`);
      return forgotten;
    }),
  ];
}
