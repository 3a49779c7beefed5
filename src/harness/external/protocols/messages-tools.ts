// Anthropic's `tools` and `tool_choice` translated onto chat completions' tools, `tool_choice` and
// `parallel_tool_calls`. Only custom tools (the agent runs them) can be carried: a server tool
// (web search, bash, text editor, code execution, computer use, web fetch, memory...) is run by
// Anthropic's servers, and a chat upstream has no such tool, so it is refused, never dropped.
import type { ToolSpec } from '../../../providers/chat.js';
import { isAbsent, isObject, isRefusal, refusal, uncarried } from './messages-refuse.js';
import type { WireRefusal } from './types.js';

/**
 * Keys of a custom tool that change nothing the model reads, so they are accepted and ignored:
 * a caching hint, constrained decoding of the input (chat's strict needs a schema the agent did not
 * write for it), and how Anthropic streams the input.
 */
const IGNORED_TOOL_KEYS = new Set(['cache_control', 'strict', 'eager_input_streaming']);
/** Keys of a custom tool that are carried or checked. */
const TOOL_KEYS = new Set(['type', 'name', 'description', 'input_schema', 'defer_loading', 'input_examples', 'allowed_callers']);

function customTool(tool: Record<string, unknown>, at: string): ToolSpec | WireRefusal {
  const unknown = Object.keys(tool).find((k) => !TOOL_KEYS.has(k) && !IGNORED_TOOL_KEYS.has(k));
  if (unknown !== undefined) return refusal(`${at}.${unknown}`, 'is not a custom tool field evalog can carry onto chat completions');
  if (typeof tool.name !== 'string' || tool.name === '') return refusal(`${at}.name`, 'must be a non-empty string');
  if (!isAbsent(tool.description) && typeof tool.description !== 'string') return refusal(`${at}.description`, 'must be a string');
  if (!isObject(tool.input_schema)) return refusal(`${at}.input_schema`, 'must be a JSON schema object');
  // A deferred tool is offered only through Anthropic's server-side tool search.
  if (tool.defer_loading === true) return refusal(`${at}.defer_loading`, 'deferred tools need server-side tool search, which chat completions lacks');
  // Examples are shown to the model; chat's function has no place for them.
  if (Array.isArray(tool.input_examples) && tool.input_examples.length > 0) return refusal(`${at}.input_examples`, 'cannot be carried onto chat completions');
  const callers = tool.allowed_callers;
  if (!isAbsent(callers) && !(Array.isArray(callers) && callers.every((c) => c === 'direct'))) return uncarried(`${at}.allowed_callers`, callers);
  return { name: tool.name, description: typeof tool.description === 'string' ? tool.description : '', parameters: tool.input_schema };
}

/** The custom tools as ToolSpecs, or a refusal naming the first server tool or bad field. */
export function translateTools(tools: unknown): ToolSpec[] | WireRefusal {
  if (isAbsent(tools)) return [];
  if (!Array.isArray(tools)) return refusal('tools', 'must be an array of tools');
  const specs: ToolSpec[] = [];
  for (const [i, tool] of tools.entries()) {
    const at = `tools[${i}]`;
    if (!isObject(tool)) return refusal(at, 'must be a tool object');
    if (!isAbsent(tool.type) && tool.type !== 'custom') return uncarried(`${at}.type`, tool.type);
    const spec = customTool(tool, at);
    if (isRefusal(spec)) return spec;
    specs.push(spec);
  }
  return specs;
}

/** Chat's `tool_choice` and `parallel_tool_calls` for Anthropic's `tool_choice` (empty when not sent). */
export function translateToolChoice(choice: unknown): Record<string, unknown> | WireRefusal {
  if (isAbsent(choice)) return {};
  if (!isObject(choice)) return refusal('tool_choice', 'must be an object with a "type"');
  const params: Record<string, unknown> = {};
  switch (choice.type) {
    case 'auto':
      params.tool_choice = 'auto';
      break;
    case 'any':
      params.tool_choice = 'required';
      break;
    case 'none':
      params.tool_choice = 'none';
      break;
    case 'tool':
      if (typeof choice.name !== 'string' || choice.name === '') return refusal('tool_choice.name', 'must be a non-empty string');
      params.tool_choice = { type: 'function', function: { name: choice.name } };
      break;
    default:
      return refusal('tool_choice.type', 'must be "auto", "any", "tool" or "none"');
  }
  const single = choice.disable_parallel_tool_use;
  if (!isAbsent(single) && typeof single !== 'boolean') return refusal('tool_choice.disable_parallel_tool_use', 'must be a boolean');
  // Sent only when the agent asks for one call at a time: parallel calls are chat's default too.
  if (single === true) params.parallel_tool_calls = false;
  return params;
}
