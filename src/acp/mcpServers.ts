// The `reins.mcpServers` setting → ACP's McpServer shapes, and which of them an agent may be
// given. Pure: the editor side (src/conversation/mcp.ts) reads the setting and tells the user; the runtime
// filters per agent at each session/new.
//
// Accepted (session-setup.mdx, "MCP Servers"):
//   stdio          { name, command, args?, env? }          (an optional `type: "stdio"` is dropped)
//   http / sse     { type: "http" | "sse", name, url, headers? }
// `env` and `headers` are ACP's `[{ name, value }]` lists, or a `{ NAME: value }` object for
// convenience (as `reins.agents` takes `env`). Values are never put into a message: they are
// often tokens.
import type { McpCapabilities, McpServer } from '@agentclientprotocol/sdk';

export interface McpParse {
  servers: McpServer[];
  /** One line per refused entry, naming its place: `reins.mcpServers[1] ("docs"): …`. */
  problems: string[];
}

const STDIO_KEYS = new Set(['type', 'name', 'command', 'args', 'env']);
const REMOTE_KEYS = new Set(['type', 'name', 'url', 'headers']);

/** Every valid entry; each invalid one is left out with a problem that says why. */
export function parseMcpServers(value: unknown, setting = 'reins.mcpServers'): McpParse {
  const servers: McpServer[] = [];
  const problems: string[] = [];
  if (value === undefined || value === null) return { servers, problems };
  if (!Array.isArray(value)) return { servers, problems: [`${setting} must be a list of servers, not ${typeOf(value)}`] };
  const names = new Set<string>();
  value.forEach((entry, i) => {
    const label = `${setting}[${i}]${isObj(entry) && typeof entry.name === 'string' ? ` ("${entry.name}")` : ''}`;
    const result = parseOne(entry);
    if (typeof result === 'string') {
      problems.push(`${label}: ${result}`);
      return;
    }
    if (names.has(result.name)) {
      problems.push(`${label}: another server already has the name "${result.name}"`);
      return;
    }
    names.add(result.name);
    servers.push(result);
  });
  return { servers, problems };
}

/** What the agent's `mcpCapabilities` allow: stdio always; http and sse only when advertised. */
export function serversFor(
  servers: McpServer[],
  caps: McpCapabilities | null | undefined,
): { allowed: McpServer[]; skipped: { name: string; type: 'http' | 'sse' }[] } {
  const allowed: McpServer[] = [];
  const skipped: { name: string; type: 'http' | 'sse' }[] = [];
  for (const s of servers) {
    const type = 'type' in s ? s.type : undefined;
    if ((type === 'http' && caps?.http !== true) || (type === 'sse' && caps?.sse !== true)) skipped.push({ name: s.name, type });
    else allowed.push(s);
  }
  return { allowed, skipped };
}

function parseOne(entry: unknown): McpServer | string {
  if (!isObj(entry)) return `must be an object, not ${typeOf(entry)}`;
  const type = entry.type ?? 'stdio';
  if (type !== 'stdio' && type !== 'http' && type !== 'sse') return `"type" must be "stdio", "http" or "sse", not ${JSON.stringify(type)}`;
  if (typeof entry.name !== 'string' || !entry.name.trim()) return 'needs a "name" (a non-empty string)';
  const name = entry.name.trim();
  const allowedKeys = type === 'stdio' ? STDIO_KEYS : REMOTE_KEYS;
  const unknown = Object.keys(entry).filter((k) => !allowedKeys.has(k));
  if (unknown.length > 0)
    return `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')} for a ${type} server (known: ${[...allowedKeys].join(', ')})`;

  if (type === 'stdio') {
    if (typeof entry.command !== 'string' || !entry.command.trim()) return 'needs a "command" (the MCP server executable)';
    const args = entry.args ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) return '"args" must be a list of strings';
    const env = pairs(entry.env, 'env');
    if (typeof env === 'string') return env;
    return { name, command: entry.command, args, env };
  }
  if (typeof entry.url !== 'string') return `needs a "url" (the ${type} endpoint)`;
  let url: URL;
  try {
    url = new URL(entry.url);
  } catch {
    return `"url" is not a URL: ${JSON.stringify(entry.url.slice(0, 100))}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"url" must be http or https, not ${url.protocol.replace(/:$/, '')}`;
  const headers = pairs(entry.headers, 'headers');
  if (typeof headers === 'string') return headers;
  return { type, name, url: entry.url, headers };
}

/** `[{name, value}]` or `{ NAME: value }` → ACP's list; a string is the problem. */
function pairs(value: unknown, field: 'env' | 'headers'): { name: string; value: string }[] | string {
  if (value === undefined || value === null) return [];
  const what = field === 'env' ? 'variable' : 'header';
  if (Array.isArray(value)) {
    const out: { name: string; value: string }[] = [];
    for (const [i, p] of value.entries()) {
      if (!isObj(p) || typeof p.name !== 'string' || !p.name || typeof p.value !== 'string')
        return `"${field}"[${i}] must be { "name": string, "value": string }`;
      out.push({ name: p.name, value: p.value });
    }
    return out;
  }
  if (isObj(value)) {
    const out: { name: string; value: string }[] = [];
    for (const [k, v] of Object.entries(value)) {
      // The value is not quoted back: it may be a secret.
      if (typeof v !== 'string') return `"${field}": the ${what} "${k}" must have a string value`;
      out.push({ name: k, value: v });
    }
    return out;
  }
  return `"${field}" must be a list of { "name", "value" } or an object of strings`;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
