// Sign-in and model choice against the real agents (issue 9), through Reins' own runtime.
// - Sign-in: the methods each agent advertises in `initialize` are read by Reins into the kinds
//   it can offer (agent, env_var, terminal); gemini, started without GEMINI_API_KEY, refuses
//   session/new with auth_required (-32000), and Reins' sentence names every method it offers.
//   codex and claude start without a key (they fail at the first model request instead), so they
//   give no offline auth_required.
// - Model choice: for each agent that offers a model (a config option of category `model`),
//   another model is picked with `setConfigOption` (the path `reins.setConfigOption` and the
//   model picker take), and the next request to the fake model API asks for it. gemini 0.61.0
//   offers its models only through the unstable `models` field (`session/set_model`), which is
//   not ACP v1, so it has no model option: that is asserted, so that a change is noticed.
import * as assert from 'node:assert/strict';
import { describeMethod, isAuthRequired, parseAuthMethods, signInNeededText, type SignInMethod } from '../../src/auth/methods';
import { StartError } from '../../src/runtime/agentRuntime';
import type { ConfigChoice } from '../../src/runtime/sessionConfig';
import type { AgentName } from './agents';
import { PLAIN_ANSWER } from './fakeModel';
import { finish, measured, model, selectedAgents, startAgent, useRealAgents, type Live } from './harness';
import { nth } from '../support/helpers';

/** The kinds of sign-in method each pinned agent advertises (versions.json), in its order. */
const METHOD_KINDS: Record<AgentName, SignInMethod['type'][]> = {
  codex: ['agent', 'agent', 'agent'],
  opencode: ['agent'],
  gemini: ['agent', 'agent', 'agent', 'agent'],
  claude: ['terminal', 'terminal'],
  'claude-0.23': ['terminal'],
  pi: ['terminal'],
  // Both describe a terminal login only in `_meta` (no `type`): Reins reads them as `agent`.
  copilot: ['agent'],
  qwen: ['agent'],
};

/** The agents whose model choice is a config option of category `model`. */
const OFFERS_MODEL_OPTION = new Set<AgentName>(['codex', 'opencode', 'claude', 'claude-0.23', 'pi', 'qwen']);

/**
 * Whether the model API was asked for the model the user picked: the same name without the
 * provider prefix and the variant or auth-type suffix (`fake/fake-model-2`, `fake-model-2(openai)` →
 * `fake-model-2`), or, for an
 * alias, a name that has it as one of its parts (claude's `opus[1m]` → `claude-opus-4-6`).
 */
function servesPick(pick: string, asked: string): boolean {
  // Qwen Code's values end in the auth type: `fake-model-2(openai)`.
  const base = pick
    .replace(/\[[^\]]*\]$/, '')
    .replace(/\([\w-]+\)$/, '')
    .replace(/^[\w.-]+\//, '');
  return asked === base || asked.split('-').includes(base);
}

/**
 * A model to pick that the local imitation serves and that differs from the one asked for
 * before: where the current value has a provider prefix (`fake/…`, opencode's and pi's own
 * providers), only that provider's models, since the others are online-only.
 */
function pickOther(choices: ConfigChoice[], askedBefore: string): ConfigChoice | undefined {
  const current = choices.find((c) => c.current);
  const provider = typeof current?.value === 'string' ? /^([\w.-]+)\//.exec(current.value)?.[1] : undefined;
  return choices.find(
    (c) =>
      !c.current &&
      typeof c.value === 'string' &&
      c.value !== 'default' &&
      (!provider || c.value.startsWith(`${provider}/`)) &&
      !servesPick(c.value, askedBefore),
  );
}

/** The models the fake API was asked for by the main (not side) requests of one prompt, told by its tag. */
async function modelsAskedFor(l: Live, tag: string): Promise<string[]> {
  const before = model().requests.length;
  const result = await l.rt.turns.prompt(`PLAIN tag=${tag}`);
  assert.deepEqual(result, { kind: 'completed', stopReason: 'end_turn' });
  assert.ok(l.chunks.join('').includes(PLAIN_ANSWER), 'the answer arrived');
  // This prompt's own requests (its tag): codex 2.6.0 makes tool-less requests of its own for the
  // turn before (one with the old model, one with `gpt-5.6-luna`) that arrive after that turn's
  // answer, so by time alone they counted as this prompt's ("asked for [gpt-5.5, gpt-5.6-luna, …]").
  const asked = model()
    .requests.slice(before)
    .filter((r) => !r.side && r.tag === tag)
    .map((r) => r.model ?? '(none)');
  assert.ok(asked.length > 0, 'a request to the model API');
  return asked;
}

describe('real agents: sign-in methods and model choice', function () {
  useRealAgents();

  for (const name of selectedAgents()) {
    describe(`${name} (real agent)`, function () {
      this.timeout(120_000);

      it('Reins reads its sign-in methods; where it offers a model option, a model picked through setConfigOption is the one the next request asks for', async function () {
        const l = await startAgent(name);
        const methods = parseAuthMethods(l.rt.agentInfo?.authMethods);
        console.log(`    ${name}: sign-in methods ${methods.map((m) => `${m.id} (${m.type})`).join(', ')}`);
        assert.deepEqual(
          methods.map((m) => m.type),
          METHOD_KINDS[name],
          `the methods Reins offers, from ${JSON.stringify(l.rt.agentInfo?.authMethods)}`,
        );

        const config = l.rt.session.controls.config;
        const option = config?.summaries().find((o) => o.category === 'model');
        if (!OFFERS_MODEL_OPTION.has(name)) {
          assert.equal(option, undefined, `${name} now offers a model option: add it to OFFERS_MODEL_OPTION`);
          await finish(this.test!.fullTitle());
          return;
        }
        assert.ok(option && config, `no model option among ${JSON.stringify(config?.summaries().map((o) => `${o.id}/${o.category ?? ''}`))}`);
        const askedBefore = await modelsAskedFor(l, 'before');
        const choices = config.choices(option.id);
        const other = pickOther(choices, nth(askedBefore, 0, 'the choices asked before'));
        assert.ok(other, `no other model the imitation serves among ${choices.map((c) => String(c.value)).join(', ')}`);
        const pick = String(other.value);

        const t0 = Date.now();
        const set = await l.rt.session.controls.set(option.id, pick);
        measured(name, 'setConfigOption (model) → answer', Date.now() - t0);
        assert.equal(set.status, 'ok', JSON.stringify(set));
        assert.equal(config.choices(option.id).find((c) => c.current)?.value, pick, 'the picker shows the model picked');

        const askedAfter = await modelsAskedFor(l, 'after');
        console.log(`    ${name}: before ${JSON.stringify(askedBefore)}; picked ${pick}; then asked for ${JSON.stringify(askedAfter)}`);
        assert.ok(
          askedAfter.every((m) => servesPick(pick, m)),
          `picked ${pick}, the model API was asked for ${JSON.stringify(askedAfter)}`,
        );
        await finish(this.test!.fullTitle());
      });

      if (name === 'gemini') {
        it('without GEMINI_API_KEY: session/new answers auth_required, and Reins names every method it would offer', async function () {
          let error: unknown;
          try {
            await startAgent(name, { beforeStart: (setup) => delete setup.env.GEMINI_API_KEY });
          } catch (e) {
            error = e;
          }
          await finish(this.test!.fullTitle());
          assert.ok(error instanceof StartError, `the start did not fail: ${String(error)}`);
          assert.ok(isAuthRequired(error.failure), `not auth_required: ${JSON.stringify(error.failure)}`);
          const methods = parseAuthMethods(error.failure.authMethods);
          assert.equal(methods.length, 4, JSON.stringify(error.failure.authMethods));
          const text = signInNeededText(name, methods);
          console.log(`    ${name}: ${text}`);
          for (const m of methods) assert.ok(text.includes(describeMethod(m)), `${m.id} not named in: ${text}`);
        });
      }
    });
  }
});
