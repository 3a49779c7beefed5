// The top-level settings of an Anthropic Messages body other than the conversation and tools:
// which are carried onto chat completion params, which are only recorded (the whole body is
// recorded as received), and which are refused. Every field is one of the three: an unknown field
// is refused by the parser, never dropped.
import { isAbsent, isObject, isRefusal, refusal, uncarried } from './messages-refuse.js';
import type { WireRefusal } from './types.js';

/**
 * Accepted and not sent upstream, because chat completions has no equivalent and none of them
 * changes the tokens the model reads:
 * - `metadata` (Claude Code sends `user_id`), `service_tier`, `inference_geo`, `speed`,
 *   `diagnostics`, `cache_control`: billing, routing, caching and reporting hints;
 * - `thinking` (enabled with a budget, adaptive, disabled): the run's model and its sampling are
 *   evalog's configuration, and the reply carries no thinking blocks (a valid Messages answer);
 *   chat's `reasoning_effort` is model-specific and would make many chat upstreams fail;
 * - `output_config.effort`: the same reasoning, for the effort hint Claude Code always sends;
 * - `context_management` edits that clear thinking: thinking never reaches the upstream anyway.
 */
export const RECORDED_ONLY = ['metadata', 'service_tier', 'inference_geo', 'speed', 'diagnostics', 'cache_control', 'thinking'] as const;

const THINKING_TYPES = new Set(['enabled', 'disabled', 'adaptive', 'between_tools']);

function checkRecordedOnly(body: Record<string, unknown>): WireRefusal | null {
  if (!isAbsent(body.metadata) && !isObject(body.metadata)) return refusal('metadata', 'must be an object');
  for (const key of ['service_tier', 'inference_geo', 'speed'] as const) {
    if (!isAbsent(body[key]) && typeof body[key] !== 'string') return refusal(key, 'must be a string');
  }
  for (const key of ['diagnostics', 'cache_control'] as const) {
    if (!isAbsent(body[key]) && !isObject(body[key])) return refusal(key, 'must be an object');
  }
  const thinking = body.thinking;
  if (isAbsent(thinking)) return null;
  if (!isObject(thinking) || !THINKING_TYPES.has(String(thinking.type)))
    return refusal('thinking.type', 'must be "enabled", "disabled", "adaptive" or "between_tools"');
  if (thinking.type === 'enabled' && !(Number.isInteger(thinking.budget_tokens) && Number(thinking.budget_tokens) > 0)) {
    return refusal('thinking.budget_tokens', 'must be a positive integer');
  }
  return null;
}

function checkContextManagement(cm: unknown): WireRefusal | null {
  if (isAbsent(cm)) return null;
  if (!isObject(cm)) return refusal('context_management', 'must be an object');
  const other = Object.keys(cm).find((k) => k !== 'edits');
  if (other !== undefined) return refusal(`context_management.${other}`, 'is not a field evalog can carry onto chat completions');
  if (isAbsent(cm.edits)) return null;
  if (!Array.isArray(cm.edits)) return refusal('context_management.edits', 'must be an array');
  for (const [i, edit] of cm.edits.entries()) {
    if (!isObject(edit) || typeof edit.type !== 'string') return refusal(`context_management.edits[${i}].type`, 'must be a string');
    // Clearing tool results (and any other edit) changes what the model reads: the upstream would
    // get the whole conversation instead, so it is refused. Clearing thinking is what already happens.
    if (!edit.type.startsWith('clear_thinking_')) return uncarried(`context_management.edits[${i}].type`, edit.type);
  }
  return null;
}

/** Chat's `response_format` from `output_config.format`; `effort` is only recorded (see RECORDED_ONLY). */
function outputConfig(config: unknown): Record<string, unknown> | WireRefusal {
  if (isAbsent(config)) return {};
  if (!isObject(config)) return refusal('output_config', 'must be an object');
  const other = Object.keys(config).find((k) => k !== 'effort' && k !== 'format');
  if (other !== undefined) return refusal(`output_config.${other}`, 'is not a field evalog can carry onto chat completions');
  if (!isAbsent(config.effort) && typeof config.effort !== 'string') return refusal('output_config.effort', 'must be a string');
  const format = config.format;
  if (isAbsent(format)) return {};
  if (!isObject(format) || format.type !== 'json_schema') return refusal('output_config.format.type', 'must be "json_schema"');
  if (!isObject(format.schema)) return refusal('output_config.format.schema', 'must be a JSON schema object');
  // Chat's json_schema needs a name; Anthropic's format has none, so every request uses this one.
  return { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } } };
}

/** `max_tokens`, sampling and stop sequences as chat params (create requests only). */
function sampling(body: Record<string, unknown>): Record<string, unknown> | WireRefusal {
  const params: Record<string, unknown> = {};
  const { max_tokens: maxTokens, temperature, top_p: topP, top_k: topK, stop_sequences: stops } = body;
  if (maxTokens === 0) return refusal('max_tokens', '0 (warming the prompt cache) has no chat completions equivalent');
  if (!Number.isInteger(maxTokens) || Number(maxTokens) < 1) return refusal('max_tokens', 'is required: a positive integer');
  params.max_tokens = maxTokens;
  for (const [key, value] of [
    ['temperature', temperature],
    ['top_p', topP],
  ] as const) {
    if (isAbsent(value)) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) return refusal(key, 'must be a number');
    params[key] = value;
  }
  // Chat completions has no top-k sampling: the agent asked for a distribution the upstream
  // would not use, so the request is refused rather than sampled differently than it says.
  if (!isAbsent(topK)) return refusal('top_k', 'has no chat completions equivalent');
  if (!isAbsent(stops)) {
    if (!Array.isArray(stops) || !stops.every((s) => typeof s === 'string')) return refusal('stop_sequences', 'must be an array of strings');
    if (stops.length > 0) params.stop = stops;
  }
  return params;
}

/** The chat params of a body's settings, or the first refusal; `counting` skips what count_tokens lacks. */
export function translateSettings(body: Record<string, unknown>, counting: boolean): Record<string, unknown> | WireRefusal {
  const bad = checkRecordedOnly(body) ?? checkContextManagement(body.context_management);
  if (bad) return bad;
  // A container is the sandbox of Anthropic's server-side code execution.
  if (!isAbsent(body.container)) return uncarried('container', body.container);
  const params = counting ? {} : sampling(body);
  if (isRefusal(params)) return params;
  const format = outputConfig(body.output_config);
  if (isRefusal(format)) return format;
  return { ...params, ...format };
}
