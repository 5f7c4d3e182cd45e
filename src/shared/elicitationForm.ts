// An elicitation's form (ACP form mode, elicitation.mdx): the fields as the host validated
// them from the agent's `requestedSchema` (acp/elicitationParams.ts), what the user typed, and
// whether that can be sent. Pure and shared: the webview refuses invalid input in the form with
// the same messages the host checks again before it answers `accept`, so what reaches the agent
// has the schema's types (a number as a number, a multi-select as an array of its options).

export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';

export interface FieldOption {
  value: string;
  title: string;
  description?: string;
}

interface FieldBase {
  /** The property's name in the schema: the key of the answer's `content`. */
  name: string;
  /** What the form shows: the schema's `title`, else the name. */
  label: string;
  description?: string;
  required: boolean;
}

export type ElicitationField =
  | (FieldBase & { kind: 'text'; minLength?: number; maxLength?: number; pattern?: string; format?: StringFormat; default?: string })
  | (FieldBase & { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; default?: number })
  | (FieldBase & { kind: 'boolean'; default?: boolean })
  | (FieldBase & { kind: 'select'; options: FieldOption[]; default?: string })
  | (FieldBase & { kind: 'multiselect'; options: FieldOption[]; minItems?: number; maxItems?: number; default?: string[] });

export interface ElicitationFormView {
  title?: string;
  description?: string;
  fields: ElicitationField[];
}

/** What the form's controls hold: text and numbers as typed, a choice's value ('' for none). */
export type FieldInput = string | boolean | string[];
export type FormInput = Record<string, FieldInput>;
/** What `accept` sends: the schema's primitive types. */
type FormContent = Record<string, string | number | boolean | string[]>;

export type FormCheck = { ok: true; content: FormContent } | { ok: false; errors: Record<string, string> };

/** The form as it opens: each field's default, else empty (a boolean unchecked). */
export function initialInput(form: ElicitationFormView): FormInput {
  const input: FormInput = {};
  for (const field of form.fields) {
    switch (field.kind) {
      case 'text':
        input[field.name] = field.default ?? '';
        break;
      case 'number':
        input[field.name] = field.default === undefined ? '' : String(field.default);
        break;
      case 'boolean':
        input[field.name] = field.default ?? false;
        break;
      case 'select':
        input[field.name] = field.default !== undefined && field.options.some((o) => o.value === field.default) ? field.default : '';
        break;
      case 'multiselect':
        input[field.name] = (field.default ?? []).filter((v) => field.options.some((o) => o.value === v));
        break;
    }
  }
  return input;
}

/** Every field checked against its schema; `content` only when all pass (empty optional fields left out). */
export function checkForm(form: ElicitationFormView, input: FormInput): FormCheck {
  const content: FormContent = {};
  const errors: Record<string, string> = {};
  for (const field of form.fields) {
    const result = checkField(field, input[field.name]);
    if (typeof result === 'object' && result !== null && 'error' in result) errors[field.name] = result.error;
    else if (result !== undefined) content[field.name] = result;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, content };
}

type FieldResult = string | number | boolean | string[] | undefined | { error: string };

/** One field's value for `content` (undefined: left out), or why it cannot be sent. */
export function checkField(field: ElicitationField, raw: FieldInput | undefined): FieldResult {
  switch (field.kind) {
    case 'boolean':
      return typeof raw === 'boolean' ? raw : false;
    case 'multiselect': {
      const chosen = Array.isArray(raw) ? raw.filter((v) => field.options.some((o) => o.value === v)) : [];
      if (chosen.length === 0 && !field.required && field.minItems === undefined) return undefined;
      if (field.minItems !== undefined && chosen.length < field.minItems) return { error: `Choose at least ${field.minItems}.` };
      if (field.required && chosen.length === 0) return { error: 'Choose at least one.' };
      if (field.maxItems !== undefined && chosen.length > field.maxItems) return { error: `Choose at most ${field.maxItems}.` };
      return chosen;
    }
    case 'select': {
      const value = typeof raw === 'string' ? raw : '';
      if (value === '') return field.required ? { error: 'Choose one.' } : undefined;
      return field.options.some((o) => o.value === value) ? value : { error: 'Choose one of the options.' };
    }
    case 'number': {
      const text = typeof raw === 'string' ? raw.trim() : '';
      if (text === '') return field.required ? { error: 'Required.' } : undefined;
      const n = Number(text);
      if (!Number.isFinite(n)) return { error: 'Enter a number.' };
      if (field.integer && !Number.isInteger(n)) return { error: 'Enter a whole number.' };
      if (field.minimum !== undefined && n < field.minimum) return { error: `At least ${field.minimum}.` };
      if (field.maximum !== undefined && n > field.maximum) return { error: `At most ${field.maximum}.` };
      return n;
    }
    case 'text': {
      const text = typeof raw === 'string' ? raw : '';
      if (text === '') return field.required ? { error: 'Required.' } : undefined;
      const length = [...text].length; // code points, as JSON Schema counts
      if (field.minLength !== undefined && length < field.minLength) return { error: `At least ${field.minLength} characters.` };
      if (field.maxLength !== undefined && length > field.maxLength) return { error: `At most ${field.maxLength} characters.` };
      if (field.format !== undefined && !formatOk(field.format, text)) return { error: FORMAT_HINT[field.format] };
      if (field.pattern !== undefined && !patternOk(field.pattern, text)) return { error: 'Does not have the form asked for.' };
      return text;
    }
  }
}

const FORMAT_HINT: Record<StringFormat, string> = {
  email: 'Enter an email address (name@example.com).',
  uri: 'Enter an address with its scheme (https://…).',
  date: 'Enter a date as YYYY-MM-DD.',
  'date-time': 'Enter a date and time as YYYY-MM-DDThh:mm:ssZ.',
};

function formatOk(format: StringFormat, text: string): boolean {
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text);
    case 'uri':
      return /^[a-z][a-z0-9+.-]*:\S+$/i.test(text) && canParseUrl(text);
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(text) && realDate(text);
    case 'date-time':
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) && realDate(text.slice(0, 10)) && !Number.isNaN(Date.parse(text));
  }
}

function canParseUrl(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/** 2026-02-30 has the form but is no day. */
function realDate(ymd: string): boolean {
  const [y, m, d] = ymd.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** A pattern the agent gave that is no regular expression here constrains nothing (the agent checks again). */
function patternOk(pattern: string, text: string): boolean {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return true;
  }
  return re.test(text);
}
