// The `reins.mcpServers` setting, read for each new session and validated (acp/mcpServers.ts);
// an invalid entry is left out and said once, with the place and the reason. Servers that an
// agent cannot take (http or sse without the capability) are said once per agent and server.
import type { McpServer } from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import { parseMcpServers } from '../acp/mcpServers';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { Transcript } from '../runtime/transcript';
import type { NoticeAction, NoticeLevel } from '../shared/messages';
import type { Disposable } from '../util/disposable';

/** Problems already said this window: a session per folder must not repeat them. */
const shownProblems = new Set<string>();
const shownSkips = new Set<string>();

const MCP_SETTING = 'reins.mcpServers';

export function mcpServersSetting(log: vscode.LogOutputChannel, say: (level: NoticeLevel, text: string, actions?: NoticeAction[]) => void): McpServer[] {
  const { servers, problems } = parseMcpServers(vscode.workspace.getConfiguration('reins').get<unknown>('mcpServers'));
  for (const problem of problems) log.error(`${problem}; that MCP server is left out`);
  const fresh = problems.filter((p) => !shownProblems.has(p));
  if (fresh.length > 0) {
    for (const p of fresh) shownProblems.add(p);
    const more = fresh.length > 1 ? ` (and ${fresh.length - 1} more: see the log)` : '';
    say('error', `${fresh[0]}${more}. That MCP server is left out.`, [{ action: 'openSettings', label: 'Open Settings', arg: MCP_SETTING }]);
  }
  return servers;
}

/** A notice in the panel, once per agent and server, for servers left out of its sessions. */
export function watchMcpSkips(rt: AgentRuntime, transcript: Transcript): Disposable {
  return rt.session.controls.onMcpSkipped((skipped) => {
    const fresh = skipped.filter((s) => {
      const key = `${rt.name}\0${s.name}\0${s.type}`;
      if (shownSkips.has(key)) return false;
      shownSkips.add(key);
      return true;
    });
    if (fresh.length === 0) return;
    const names = fresh.map((s) => `"${s.name}" (${s.type})`).join(', ');
    transcript.notice(
      'warning',
      `${rt.name} does not support MCP servers over ${[...new Set(fresh.map((s) => s.type))].join(' or ')}, so ${names} ${fresh.length > 1 ? 'were' : 'was'} left out of its sessions.`,
    );
  });
}
