// promptfoo's providers, as evalog's model arms. evalog calls one OpenAI-compatible endpoint per
// run (the scripted model, or the one the environment names), so a provider id is read for its model
// name alone: `openai:chat:gpt-4.1-mini`, `openai:gpt-4.1-mini` and the OpenAI-compatible hosts'
// `<host>:<model>` become the model `gpt-4.1-mini` sent to that endpoint. Several providers are
// several model arms. An id that names another protocol (completions, embeddings, assistants, a
// script, an HTTP target) is refused: the endpoint could not answer it as the config means.
import { at, isRecord, onlyKeys, refuse, shown, type Where } from './errors.js';

/** Hosts whose API is OpenAI's chat completions: `<host>:<model>` (and `<host>:chat:<model>`). */
const CHAT_HOSTS = ['openai', 'openrouter', 'deepseek', 'groq', 'mistral', 'togetherai', 'fireworks', 'perplexity', 'vllm', 'localai', 'ollama'] as const;
/** OpenAI's kinds that are not chat completions. */
const OTHER_KINDS = ['completion', 'embedding', 'embeddings', 'assistant', 'image', 'responses', 'realtime', 'moderation', 'transcription', 'agents'];

/** What the providers give the run: model ids (one arm each) and the sampling they share. */
export interface ProviderPlan {
  models: string[];
  sampling: { temperature?: number; maxTokens?: number };
}

const SAMPLING_KEYS = ['temperature', 'max_tokens'] as const;

/** The model an id names, or a refusal naming what evalog can map. */
export function modelOf(where: Where, id: unknown): string {
  if (typeof id !== 'string' || id.trim() === '') throw refuse(where, `a provider id must be a non-empty string, got ${shown(id)}`);
  const parts = id.trim().split(':');
  const host = parts[0]!;
  const supported = `supported: ${CHAT_HOSTS.map((h) => `${h}:<model>`).join(', ')}, also as <host>:chat:<model>`;
  if (!(CHAT_HOSTS as readonly string[]).includes(host) || parts.length < 2)
    throw refuse(where, `provider ${JSON.stringify(id)} cannot be mapped onto the run's OpenAI-compatible endpoint (${supported})`);
  let rest = parts.slice(1);
  if (rest[0] === 'chat') rest = rest.slice(1);
  else if (OTHER_KINDS.includes(rest[0]!))
    throw refuse(where, `provider ${JSON.stringify(id)}: the ${rest[0]} API is not supported; evalog sends chat completions (${supported})`);
  const model = rest.join(':');
  if (model === '') throw refuse(where, `provider ${JSON.stringify(id)} names no model`);
  return model;
}

/** Reads `providers`: a string, or a list of strings and `{ id, config? }` objects. */
export function providerPlan(where: Where, value: unknown): ProviderPlan {
  if (value === undefined || value === null) return { models: [], sampling: {} };
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) throw refuse(where, `must be a provider id or a non-empty list of them, got ${shown(value)}`);
  const models: string[] = [];
  let sampling: ProviderPlan['sampling'] | null = null;
  let samplingFrom = '';
  for (const [i, item] of list.entries()) {
    const w = at(where, i);
    let id: unknown = item;
    let own: ProviderPlan['sampling'] = {};
    if (isRecord(item)) {
      onlyKeys(w, item, ['id', 'config'], 'provider');
      id = item.id;
      own = samplingOf(at(w, 'config'), item.config);
    } else if (typeof item !== 'string') throw refuse(w, `must be a provider id or { id, config }, got ${shown(item)}`);
    const model = modelOf(isRecord(item) ? at(w, 'id') : w, id);
    if (models.includes(model)) throw refuse(w, `model ${JSON.stringify(model)} is listed twice (each provider is an arm, named by its model)`);
    models.push(model);
    // evalog's arms of one run share their sampling settings: per-provider differences cannot be kept.
    if (sampling === null) {
      sampling = own;
      samplingFrom = w.path;
    } else if (JSON.stringify(own) !== JSON.stringify(sampling))
      throw refuse(w, `its config differs from ${samplingFrom}'s; evalog's model arms share one temperature and max_tokens`);
  }
  return { models, sampling: sampling ?? {} };
}

function samplingOf(where: Where, config: unknown): ProviderPlan['sampling'] {
  if (config === undefined) return {};
  if (!isRecord(config)) throw refuse(where, `must be a mapping, got ${shown(config)}`);
  onlyKeys(where, config, SAMPLING_KEYS, 'provider config');
  const out: ProviderPlan['sampling'] = {};
  if (config.temperature !== undefined) {
    const t = config.temperature;
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > 2) throw refuse(at(where, 'temperature'), `must be a number from 0 to 2, got ${shown(t)}`);
    out.temperature = t;
  }
  if (config.max_tokens !== undefined) {
    const m = config.max_tokens;
    if (typeof m !== 'number' || !Number.isInteger(m) || m < 1) throw refuse(at(where, 'max_tokens'), `must be a whole number of at least 1, got ${shown(m)}`);
    out.maxTokens = m;
  }
  return out;
}
