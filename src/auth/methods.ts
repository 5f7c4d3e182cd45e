// The sign-in methods an agent advertises in `initialize`'s `authMethods`, read into one union.
// ACP v1 defines `agent` (the default: the client calls `authenticate`) and `terminal` (the
// client runs the agent's own program with extra args in a terminal, then reconnects). `env_var`
// (the user gives values that the client passes in the agent's environment) comes from the
// auth-methods RFD and is sent by real agents: `{ id, name, type: "env_var", link?, vars:
// [{ name, label?, secret = true, optional = false }] }`; older agents sent one `varName`.
// Unknown types are not offered. No `vscode` here.

/** JSON-RPC error code of an `auth_required` error (ACP: session/new, session/prompt, …). */
export const AUTH_REQUIRED = -32000;

interface EnvVarSpec {
  name: string;
  label?: string;
  secret: boolean;
  optional: boolean;
}

export type SignInMethod =
  | { type: 'agent'; id: string; name: string; description?: string }
  | { type: 'env_var'; id: string; name: string; description?: string; link?: string; vars: EnvVarSpec[] }
  | { type: 'terminal'; id: string; name: string; description?: string; args: string[]; env: Record<string, string> };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
/** An environment variable name that a shell and `spawn` both accept. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function parseOne(m: unknown): SignInMethod | undefined {
  if (!isObj(m)) return undefined;
  // ACP v2 renamed the descriptor's `id` to `methodId`.
  const id = str(m.id) ?? str(m.methodId);
  const name = str(m.name) ?? id;
  if (!id || !name) return undefined;
  const description = str(m.description);
  const type = m.type ?? 'agent';
  if (type === 'agent') return { type, id, name, description };
  if (type === 'terminal') {
    const args = Array.isArray(m.args) ? m.args.filter((a): a is string => typeof a === 'string') : [];
    const env = isObj(m.env)
      ? Object.fromEntries(Object.entries(m.env).filter((e): e is [string, string] => typeof e[1] === 'string' && ENV_NAME.test(e[0])))
      : {};
    return { type, id, name, description, args, env };
  }
  if (type === 'env_var') {
    const raw = Array.isArray(m.vars) ? m.vars : typeof m.varName === 'string' ? [{ name: m.varName }] : [];
    const vars = raw.flatMap((v): EnvVarSpec[] => {
      if (!isObj(v) || typeof v.name !== 'string' || !ENV_NAME.test(v.name)) return [];
      return [{ name: v.name, label: str(v.label), secret: v.secret !== false, optional: v.optional === true }];
    });
    if (vars.length === 0) return undefined; // nothing to ask for
    return { type, id, name, description, link: str(m.link), vars };
  }
  return undefined;
}

/** The methods Reins can offer, in the agent's order; malformed and unknown ones left out. */
export function parseAuthMethods(raw: unknown): SignInMethod[] {
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  return raw.flatMap((m) => {
    const parsed = parseOne(m);
    if (!parsed || seen.has(parsed.id)) return [];
    seen.add(parsed.id);
    return [parsed];
  });
}

/** One method as the user reads it: "API key (GEMINI_API_KEY)", "Log in (in a terminal)". */
export function describeMethod(m: SignInMethod): string {
  switch (m.type) {
    case 'agent':
      return m.name;
    case 'env_var':
      return `${m.name} (${m.vars.map((v) => v.name).join(', ')})`;
    case 'terminal':
      return `${m.name} (in a terminal)`;
  }
}

/** The sentence that says sign-in is needed and how: for the panel, the notification and `sendPrompt`. */
export function signInNeededText(agent: string, methods: SignInMethod[]): string {
  if (methods.length === 0)
    return `${agent} needs you to sign in, but offers no sign-in method Reins can use; sign in with the agent's own tools, then restart it.`;
  return `${agent} needs you to sign in. Methods: ${methods.map(describeMethod).join('; ')}.`;
}

/** Whether a JSON-RPC error (or anything carrying a code) is ACP's auth_required. */
export function isAuthRequired(error: unknown): boolean {
  return isObj(error) ? error.code === AUTH_REQUIRED : false;
}
