// Fields of an agent's request that its protocol documents as the client's own bookkeeping: a
// session or user id, a cache-routing key, metadata stored beside the response, the ids a client
// gives the items it sends. None of them reaches the model, and clients fill them afresh on every
// run (Claude Code's `metadata.user_id`, Codex's `prompt_cache_key`, `client_metadata` and item
// ids), so a resumed or replayed agent that asks for the same thing sends other values. They are
// recorded as sent, and left out when a request is compared with its record. The lists are small
// and explicit on purpose: anything not named here, above all anything the model sees, is compared.

/** The protocols whose bodies are compared: the agent's own (`responses`, `messages`) and the translated chat request's params (`chat`). */
export type ComparedProtocol = 'chat' | 'responses' | 'messages';

/**
 * One field: object keys from the body's root, `*` for every element of an array. `unless` keeps
 * the field where the object holding it has that `type` (an `item_reference`'s id is its content).
 */
export interface RecordOnlyField {
  path: readonly string[];
  unless?: { type: string };
}

export const RECORD_ONLY_FIELDS: Readonly<Record<ComparedProtocol, readonly RecordOnlyField[]>> = {
  // OpenAI chat completions (and the chat request a Responses or Messages request is translated to):
  // `user` and `safety_identifier` identify the end user to OpenAI, `prompt_cache_key` routes
  // the prompt cache, `metadata` is stored with the completion.
  chat: [{ path: ['metadata'] }, { path: ['prompt_cache_key'] }, { path: ['safety_identifier'] }, { path: ['user'] }],
  // OpenAI Responses: the same four, `client_metadata` (Codex's session, turn and installation
  // ids), and the ids of the input items the client sent (an `item_reference` is its id: kept).
  responses: [
    { path: ['client_metadata'] },
    { path: ['input', '*', 'id'], unless: { type: 'item_reference' } },
    { path: ['metadata'] },
    { path: ['prompt_cache_key'] },
    { path: ['safety_identifier'] },
    { path: ['user'] },
  ],
  // Anthropic Messages: `metadata.user_id`, "an external identifier for the user" (Claude Code
  // puts its session id there). Other metadata keys, should a client send any, are compared.
  messages: [{ path: ['metadata', 'user_id'] }],
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy of `value` without the field at `path` (one rule); what is not on the path is shared, not copied. */
function without(value: unknown, path: readonly string[], field: RecordOnlyField): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (head === '*') return Array.isArray(value) ? value.map((v) => without(v, rest, field)) : value;
  if (!isObject(value) || !Object.hasOwn(value, head)) return value;
  if (rest.length === 0) {
    if (field.unless && value.type === field.unless.type) return value;
    const { [head]: _dropped, ...kept } = value;
    return kept;
  }
  return { ...value, [head]: without(value[head], rest, field) };
}

/** The body as it is compared: the protocol's record-only fields left out. */
export function comparedBody(protocol: ComparedProtocol, body: unknown): unknown {
  return RECORD_ONLY_FIELDS[protocol].reduce((v, field) => without(v, field.path, field), body);
}

/** Chat params split into those compared and the record-only ones (top-level keys of the `chat` list). */
export function splitChatParams(params: Readonly<Record<string, unknown>>): { compared: Record<string, unknown>; recordOnly: Record<string, unknown> } {
  const names = new Set(RECORD_ONLY_FIELDS.chat.filter((f) => f.path.length === 1).map((f) => f.path[0]!));
  const compared: Record<string, unknown> = {};
  const recordOnly: Record<string, unknown> = {};
  for (const key of Object.keys(params).sort()) (names.has(key) ? recordOnly : compared)[key] = params[key];
  return { compared, recordOnly };
}

/**
 * The first place two JSON values differ, as a path (`input[5].output`, `system[2].text`), or
 * null when they are equal. Object keys are visited in sorted order, so the answer is stable.
 */
export function firstDifference(a: unknown, b: unknown, at = ''): string | null {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d !== null) return d;
    }
    return a.length === b.length ? null : `${at}[${Math.min(a.length, b.length)}]`;
  }
  if (isObject(a) && isObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const here = at === '' ? key : `${at}.${key}`;
      if (!Object.hasOwn(a, key) || !Object.hasOwn(b, key)) return here;
      const d = firstDifference(a[key], b[key], here);
      if (d !== null) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : at === '' ? '(body)' : at;
}
