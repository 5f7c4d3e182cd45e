// `elicitation/create` and `elicitation/complete` as the agent sent them, checked against the
// spec's restrictions (elicitation.mdx, schema.json's ElicitationSchema): a flat object of
// string, number, integer, boolean and multi-select properties. Anything else (a nested object,
// a missing `requestedSchema`, a type nobody can render, a URL that is not http(s), a mode Reins
// does not advertise) is refused here with -32602 at once, so that nothing is shown that the
// user could not answer, and the session goes on.
import type { ElicitationField, ElicitationFormView, FieldOption, StringFormat } from '../shared/elicitationForm';

/** Session-scoped (optionally in a tool call's card) or request-scoped (outside any session). */
type ElicitationScope = { sessionId: string; toolCallId?: string } | { requestId: string | number };

export type ElicitationRequest =
  | { mode: 'form'; message: string; scope: ElicitationScope; form: ElicitationFormView }
  | { mode: 'url'; message: string; scope: ElicitationScope; elicitationId: string; url: string };

export type ElicitationAction = 'accept' | 'decline' | 'cancel';
export type ElicitationAnswer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

/** A form the panel can still draw and a person can still read. */
const MAX_FIELDS = 64;
const MAX_OPTIONS = 500;
const MAX_TEXT = 4000;
const MAX_URL = 8000;
const FORMATS: readonly StringFormat[] = ['email', 'uri', 'date', 'date-time'];

/** Why params were refused: the connection answers -32602 with this message. */
export class InvalidElicitation extends Error {
  constructor(message: string) {
    super(`elicitation/create: ${message}`);
    this.name = 'InvalidElicitation';
  }
}

export function parseElicitation(params: unknown): ElicitationRequest {
  if (!isObj(params)) throw new InvalidElicitation('params must be an object');
  const message = params.message;
  if (typeof message !== 'string') throw new InvalidElicitation('needs a message');
  if (message.length > MAX_TEXT) throw new InvalidElicitation(`its message is longer than ${MAX_TEXT} characters`);
  const scope = parseScope(params);
  if (params.mode === 'form') {
    if (!('requestedSchema' in params)) throw new InvalidElicitation('form mode needs a requestedSchema');
    return { mode: 'form', message, scope, form: parseSchema(params.requestedSchema) };
  }
  if (params.mode === 'url') {
    const { elicitationId, url } = params;
    if (typeof elicitationId !== 'string' || elicitationId === '') throw new InvalidElicitation('url mode needs an elicitationId');
    if (typeof url !== 'string' || url.length > MAX_URL) throw new InvalidElicitation('url mode needs a url');
    if (!isHttpUrl(url)) throw new InvalidElicitation('the url must be an http or https address');
    return { mode: 'url', message, scope, elicitationId, url };
  }
  // Neither advertised mode (a custom `_…` one included): the spec's answer is -32602.
  throw new InvalidElicitation(`mode ${JSON.stringify(params.mode)} is not one Reins advertises (form, url)`);
}

/** `elicitation/complete`'s id, or undefined for a malformed notification (ignored). */
export function completedId(params: unknown): string | undefined {
  return isObj(params) && typeof params.elicitationId === 'string' ? params.elicitationId : undefined;
}

function parseScope(params: Record<string, unknown>): ElicitationScope {
  const { sessionId, toolCallId, requestId } = params;
  if (typeof sessionId === 'string') {
    if (toolCallId !== undefined && toolCallId !== null && typeof toolCallId !== 'string') throw new InvalidElicitation('toolCallId must be a string');
    return typeof toolCallId === 'string' ? { sessionId, toolCallId } : { sessionId };
  }
  if (sessionId !== undefined && sessionId !== null) throw new InvalidElicitation('sessionId must be a string');
  if (typeof requestId === 'string' || (typeof requestId === 'number' && Number.isFinite(requestId))) return { requestId };
  throw new InvalidElicitation('needs a sessionId or a requestId');
}

function parseSchema(schema: unknown): ElicitationFormView {
  if (!isObj(schema)) throw new InvalidElicitation('requestedSchema must be an object');
  if (schema.type !== undefined && schema.type !== 'object') throw new InvalidElicitation('requestedSchema must be of type object');
  const properties = schema.properties ?? {};
  if (!isObj(properties)) throw new InvalidElicitation('requestedSchema.properties must be an object');
  const names = Object.keys(properties);
  if (names.length > MAX_FIELDS) throw new InvalidElicitation(`more than ${MAX_FIELDS} properties`);
  const required = schema.required ?? [];
  if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) throw new InvalidElicitation('required must be a list of names');
  for (const r of required) if (!names.includes(r)) throw new InvalidElicitation(`required names ${JSON.stringify(r)}, which is no property`);
  const fields = names.map((name) => parseField(name, properties[name], required.includes(name)));
  return withoutUndefined({ title: text(schema.title), description: text(schema.description), fields });
}

function parseField(name: string, schema: unknown, required: boolean): ElicitationField {
  const where = `property ${JSON.stringify(name)}`;
  if (!isObj(schema)) throw new InvalidElicitation(`${where} must be an object`);
  const base = withoutUndefined({ name, label: text(schema.title) ?? name, description: text(schema.description), required });
  switch (schema.type) {
    case 'string': {
      const options = stringOptions(schema, where);
      if (options) return withoutUndefined({ ...base, kind: 'select' as const, options, default: text(schema.default) });
      const format = schema.format ?? undefined;
      if (format !== undefined && !FORMATS.includes(format as StringFormat))
        throw new InvalidElicitation(`${where} has an unknown format ${JSON.stringify(format)}`);
      return withoutUndefined({
        ...base,
        kind: 'text' as const,
        minLength: count(schema.minLength, where, 'minLength'),
        maxLength: count(schema.maxLength, where, 'maxLength'),
        pattern: optionalString(schema.pattern, where, 'pattern'),
        format: format as StringFormat | undefined,
        default: text(schema.default),
      });
    }
    case 'number':
    case 'integer': {
      const integer = schema.type === 'integer';
      const def = typeof schema.default === 'number' && (!integer || Number.isInteger(schema.default)) ? schema.default : undefined;
      return withoutUndefined({
        ...base,
        kind: 'number' as const,
        integer,
        minimum: bound(schema.minimum, integer, where, 'minimum'),
        maximum: bound(schema.maximum, integer, where, 'maximum'),
        default: def,
      });
    }
    case 'boolean':
      return withoutUndefined({ ...base, kind: 'boolean' as const, default: typeof schema.default === 'boolean' ? schema.default : undefined });
    case 'array': {
      const options = itemOptions(schema.items, where);
      // A wrong default is dropped, not refused (the schema's x-deserialize-default-on-error).
      const def = Array.isArray(schema.default) ? schema.default.filter((v): v is string => typeof v === 'string') : undefined;
      return withoutUndefined({
        ...base,
        kind: 'multiselect' as const,
        options,
        minItems: count(schema.minItems, where, 'minItems'),
        maxItems: count(schema.maxItems, where, 'maxItems'),
        default: def,
      });
    }
    default:
      // `object` (nesting), a custom `_…` type, or nothing: no control to render it with.
      throw new InvalidElicitation(`${where} has type ${JSON.stringify(schema.type)}, which a form cannot show`);
  }
}

/** A single-select's options (`enum`, or titled `oneOf`); undefined for a plain string. */
function stringOptions(schema: Record<string, unknown>, where: string): FieldOption[] | undefined {
  const { enum: values, oneOf } = schema;
  if (oneOf !== undefined && oneOf !== null) return titledOptions(oneOf, where);
  if (values === undefined || values === null) return undefined;
  return plainOptions(values, where);
}

function itemOptions(items: unknown, where: string): FieldOption[] {
  if (!isObj(items)) throw new InvalidElicitation(`${where} is an array without items`);
  if (items.anyOf !== undefined) return titledOptions(items.anyOf, where);
  if (items.type !== 'string') throw new InvalidElicitation(`${where}'s items must be strings`);
  return plainOptions(items.enum, where);
}

function plainOptions(values: unknown, where: string): FieldOption[] {
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) throw new InvalidElicitation(`${where}'s enum must be a list of strings`);
  return limited(
    values.map((v: string) => ({ value: v, title: v })),
    where,
  );
}

function titledOptions(options: unknown, where: string): FieldOption[] {
  if (!Array.isArray(options)) throw new InvalidElicitation(`${where}'s options must be a list`);
  const parsed = options.map((o) => {
    if (!isObj(o) || typeof o.const !== 'string' || typeof o.title !== 'string') throw new InvalidElicitation(`${where} has an option without const and title`);
    return withoutUndefined({ value: o.const, title: o.title, description: text(o.description) });
  });
  return limited(parsed, where);
}

function limited(options: FieldOption[], where: string): FieldOption[] {
  if (options.length === 0) throw new InvalidElicitation(`${where} offers no option`);
  if (options.length > MAX_OPTIONS) throw new InvalidElicitation(`${where} offers more than ${MAX_OPTIONS} options`);
  return options;
}

function count(value: unknown, where: string, key: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new InvalidElicitation(`${where}'s ${key} must be a whole number ≥ 0`);
  return value;
}

function bound(value: unknown, integer: boolean, where: string, key: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)))
    throw new InvalidElicitation(`${where}'s ${key} must be a number`);
  return value;
}

function optionalString(value: unknown, where: string, key: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidElicitation(`${where}'s ${key} must be a string`);
  return value;
}

/** An optional display string: anything else is dropped, as the schema's defaults-on-error say. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value.slice(0, MAX_TEXT) : undefined;
}

function isHttpUrl(raw: string): boolean {
  try {
    const { protocol } = new URL(raw);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

function isObj(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
