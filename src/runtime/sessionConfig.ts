// One session's modes, config options, slash commands, title and usage: what the answer to
// session/new (load, resume) said, kept true by the agent's updates and by the answers to our
// own set requests. Pure: no `vscode`, no I/O; the runtime owns one per session
// (sessionControls.ts) and the panel and the pickers read its views.
//
// Config options are the protocol's preferred form: when the agent sends both `configOptions`
// and the older `modes`, the options are used and `modes` only answers a `'mode'` request that
// no option can (session-config-options.mdx, "Relationship to Session Modes"). Models are the
// option of category `model`; no capability is needed for categories.
import type {
  AvailableCommand,
  SessionConfigOption,
  SessionConfigSelectOption,
  SessionModeState,
  SetSessionConfigOptionRequest,
  SetSessionModeRequest,
  SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { SessionView, SessionUsageView } from '../shared/messages';

/** At most this many slash commands reach the panel (claude-agent-acp sends about 40). */
const MAX_COMMANDS = 200;
/** Long agent-supplied strings are cut for the panel: they are labels, not documents. */
const MAX_LABEL = 200;

/** One value a picker offers for an option (select values flattened out of their groups). */
export interface ConfigChoice {
  value: string | boolean;
  name: string;
  description?: string;
  /** The group's name, for grouped select options. */
  group?: string;
  current: boolean;
}

/** What an option looks like to a picker: Reins can set `select` and `boolean` options. */
export interface ConfigOptionSummary {
  id: string;
  name: string;
  description?: string;
  category?: string;
  type: string;
  /** The current value's display name. */
  currentName: string;
  settable: boolean;
}

/** The request that sets what was asked for, or why there is none. */
export type SetPlan =
  | { method: 'session/set_config_option'; params: SetSessionConfigOptionRequest }
  | { method: 'session/set_mode'; params: SetSessionModeRequest }
  | { error: string };

export type SetValue = string | boolean;

export class SessionConfig {
  private modes: SessionModeState | undefined;
  private options: SessionConfigOption[] | undefined;
  private commands: AvailableCommand[] = [];
  private title: string | undefined;
  private usage: SessionUsageView | undefined;

  constructor(readonly sessionId: string) {}

  /**
   * The answer to session/new (load, resume). Only the fields it carries replace what the
   * updates kept before the answer said: the answer was written after them.
   */
  setInitial(answer: { modes?: SessionModeState | null; configOptions?: SessionConfigOption[] | null } | null | undefined): void {
    if (answer?.modes && isModeState(answer.modes)) this.modes = answer.modes;
    if (Array.isArray(answer?.configOptions)) this.options = answer.configOptions.map(v1Option).filter(isOption);
  }

  /** Apply one update; true when it was one of the kinds kept here (and the view may differ). */
  apply(update: SessionUpdate): boolean {
    switch (update.sessionUpdate) {
      case 'config_option_update':
        // The complete state, every time.
        if (!Array.isArray(update.configOptions)) return false;
        this.options = update.configOptions.map(v1Option).filter(isOption);
        return true;
      case 'current_mode_update': {
        // The schema says `currentModeId`; the spec's prose example says `modeId`.
        const id = update.currentModeId ?? (update as { modeId?: unknown }).modeId;
        if (typeof id !== 'string') return false;
        this.noteMode(id);
        return true;
      }
      case 'available_commands_update':
        if (!Array.isArray(update.availableCommands)) return false;
        this.commands = update.availableCommands.filter((c) => typeof c?.name === 'string');
        return true;
      case 'session_info_update':
        // `title: null` clears it; a missing title (goose's run announcements) changes nothing.
        if (!('title' in update)) return false;
        this.title = typeof update.title === 'string' && update.title.trim() ? update.title.trim().slice(0, MAX_LABEL) : undefined;
        return true;
      case 'usage_update':
        if (typeof update.used !== 'number' || typeof update.size !== 'number') return false;
        this.usage = {
          used: update.used,
          size: update.size,
          cost:
            update.cost && typeof update.cost.amount === 'number' ? { amount: update.cost.amount, currency: String(update.cost.currency ?? '') } : undefined,
        };
        return true;
      default:
        return false;
    }
  }

  /** The answer to our own set request: set_config_option's is the complete state again. */
  applySetAnswer(plan: Exclude<SetPlan, { error: string }>, answer: unknown): void {
    if (plan.method === 'session/set_config_option') {
      const options = (answer as { configOptions?: unknown } | null)?.configOptions;
      if (Array.isArray(options)) this.options = options.map(v1Option).filter(isOption);
      else this.setOptionValue(plan.params.configId, plan.params.value); // an agent that answered {}: what we asked for holds
    } else {
      this.noteMode(plan.params.modeId);
    }
  }

  /** The option that `configId` names: its id, else the first of that category ('mode', 'model'). */
  resolve(configId: string): SessionConfigOption | undefined {
    const options = this.options ?? [];
    return options.find((o) => o.id === configId) ?? options.find((o) => o.category === configId);
  }

  /** The request that sets `configId` to `value`, checked against what the agent offered. */
  plan(configId: string, value: SetValue): SetPlan {
    const option = this.resolve(configId);
    if (option) {
      if (option.type === 'boolean') {
        if (typeof value !== 'boolean')
          return { error: `${option.name} (${option.id}) is on or off: its value must be true or false, not ${JSON.stringify(value)}` };
        return { method: 'session/set_config_option', params: { sessionId: this.sessionId, configId: option.id, type: 'boolean', value } };
      }
      // An agent may send a type newer than this schema; the spec says to leave it alone.
      if (option.type !== 'select') {
        const other = option as { id: string; name: string; type: unknown };
        return { error: `${other.name} (${other.id}) is of type "${String(other.type)}", which Reins cannot set` };
      }
      const values = selectValues(option);
      if (typeof value !== 'string' || !values.some((v) => v.value === value)) {
        return { error: `${option.name} (${option.id}) has no value ${JSON.stringify(value)}; it offers ${values.map((v) => v.value).join(', ')}` };
      }
      return { method: 'session/set_config_option', params: { sessionId: this.sessionId, configId: option.id, value } };
    }
    // Agents that offer only the older modes: 'mode' means session/set_mode.
    if (configId === 'mode' && this.modes) {
      const ids = this.modes.availableModes.map((m) => m.id);
      if (typeof value !== 'string' || !ids.includes(value)) return { error: `the agent has no mode ${JSON.stringify(value)}; it offers ${ids.join(', ')}` };
      return { method: 'session/set_mode', params: { sessionId: this.sessionId, modeId: value } };
    }
    const known = (this.options ?? []).map((o) => o.id);
    if (configId === 'mode') return { error: 'the agent offers no modes' };
    if (configId === 'model') return { error: 'the agent offers no model choice' };
    return { error: `the agent offers no option "${configId}"${known.length ? ` (it offers ${known.join(', ')})` : ''}` };
  }

  /** The values a picker offers for `configId` ('mode' falls back to the older modes). */
  choices(configId: string): ConfigChoice[] {
    const option = this.resolve(configId);
    if (option?.type === 'boolean') {
      return [true, false].map((v) => ({ value: v, name: v ? 'On' : 'Off', current: option.currentValue === v }));
    }
    if (option?.type === 'select') return selectValues(option).map((v) => ({ ...v, current: v.value === option.currentValue }));
    if (!option && configId === 'mode' && this.modes) {
      const current = this.modes.currentModeId;
      return this.modes.availableModes.map((m) => ({ value: m.id, name: m.name, description: m.description ?? undefined, current: m.id === current }));
    }
    return [];
  }

  /** Every option, in the agent's order (its order is its priority). */
  summaries(): ConfigOptionSummary[] {
    return (this.options ?? []).map((o) => ({
      id: o.id,
      name: o.name,
      description: o.description ?? undefined,
      category: o.category ?? undefined,
      type: String(o.type),
      currentName: currentName(o),
      settable: o.type === 'select' || o.type === 'boolean',
    }));
  }

  /** From `session_info_update`: the panel's title shows it. */
  get sessionTitle(): string | undefined {
    return this.title;
  }

  get hasModes(): boolean {
    return this.resolve('mode') !== undefined || (this.modes?.availableModes.length ?? 0) > 0;
  }
  get hasModels(): boolean {
    return this.resolve('model') !== undefined;
  }
  get hasOptions(): boolean {
    return (this.options?.length ?? 0) > 0 || this.hasModes;
  }

  /** What the panel shows: plain data, cut to size. */
  view(): SessionView {
    const modeOption = this.resolve('mode');
    const modelOption = this.resolve('model');
    const mode = modeOption
      ? { configId: modeOption.id, name: currentName(modeOption) }
      : this.modes
        ? { configId: 'mode', name: this.modes.availableModes.find((m) => m.id === this.modes?.currentModeId)?.name ?? this.modes.currentModeId }
        : undefined;
    return {
      title: this.title,
      mode,
      model: modelOption ? { configId: modelOption.id, name: currentName(modelOption) } : undefined,
      commands: this.commands.slice(0, MAX_COMMANDS).map((c) => ({
        name: c.name.slice(0, MAX_LABEL),
        description: String(c.description ?? '').slice(0, MAX_LABEL),
        hint: typeof c.input?.hint === 'string' ? c.input.hint.slice(0, MAX_LABEL) : undefined,
      })),
      usage: this.usage,
    };
  }

  /** The mode changed (the agent said so, or set_mode succeeded): both forms agree again. */
  private noteMode(id: string): void {
    if (this.modes) this.modes = { ...this.modes, currentModeId: id };
    else this.modes = { currentModeId: id, availableModes: [] };
    // An agent that sends only current_mode_update must not leave the mode option stale.
    const option = this.resolve('mode');
    if (option?.type === 'select' && selectValues(option).some((v) => v.value === id)) this.setOptionValue(option.id, id);
  }

  private setOptionValue(configId: string, value: SetValue): void {
    this.options = this.options?.map((o) => (o.id === configId ? ({ ...o, currentValue: value } as SessionConfigOption) : o));
  }
}

function isModeState(m: unknown): m is SessionModeState {
  const s = m as SessionModeState;
  return typeof s?.currentModeId === 'string' && Array.isArray(s.availableModes);
}

/** ACP v2 names an option `configId` and a select group `groupId` (v1: `id`, `group`): read as v1's. */
function v1Option(o: unknown): unknown {
  if (typeof o !== 'object' || o === null) return o;
  const x = o as Record<string, unknown>;
  if (typeof x.id === 'string' || typeof x.configId !== 'string') return o;
  const groups = Array.isArray(x.options)
    ? x.options.map((g: unknown) => {
        const y = g as Record<string, unknown> | null;
        return y && typeof y.groupId === 'string' && !('group' in y) ? { ...y, group: y.groupId } : g;
      })
    : x.options;
  return { ...x, id: x.configId, options: groups };
}

function isOption(o: unknown): o is SessionConfigOption {
  const x = o as SessionConfigOption;
  return typeof x?.id === 'string' && typeof x.name === 'string' && typeof x.type === 'string';
}

/** A select option's values, flattened out of their groups. */
function selectValues(option: SessionConfigOption): Omit<ConfigChoice, 'current'>[] {
  if (option.type !== 'select' || !Array.isArray(option.options)) return [];
  const out: Omit<ConfigChoice, 'current'>[] = [];
  for (const entry of option.options as (SessionConfigSelectOption | { group: string; name: string; options: SessionConfigSelectOption[] })[]) {
    if ('group' in entry && Array.isArray(entry.options)) {
      for (const v of entry.options) out.push({ value: v.value, name: v.name, description: v.description ?? undefined, group: entry.name });
    } else if ('value' in entry && typeof entry.value === 'string') {
      out.push({ value: entry.value, name: entry.name, description: entry.description ?? undefined });
    }
  }
  return out;
}

function currentName(option: SessionConfigOption): string {
  if (option.type === 'boolean') return option.currentValue ? 'On' : 'Off';
  const value = option.currentValue;
  return (selectValues(option).find((v) => v.value === value)?.name ?? String(value)).slice(0, MAX_LABEL);
}
