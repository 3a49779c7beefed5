// The tools and settings of a Responses request as chat completions has them: function tools as
// tool specs, the tool choice in chat's shape, reasoning effort and the text format. What chat
// cannot carry is refused, naming the field.
import type { ToolSpec } from '../../../providers/chat.js';
import { isObject, onlyKeys, refuse, stringAt, unset } from './refusal.js';

/** Function tools as chat's; hosted tools (web search, file search, code interpreter, computer, MCP...) are OpenAI's servers' own. */
export function toolSpecs(tools: unknown): ToolSpec[] {
  if (unset(tools)) return [];
  if (!Array.isArray(tools)) refuse('tools', 'must be an array of tools');
  return tools.map((tool, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) refuse(at, 'must be an object');
    if (tool.type !== 'function') {
      const what = typeof tool.type === 'string' ? `${JSON.stringify(tool.type)} is not a function tool and` : 'a tool without a string type';
      refuse(`${at}.type`, `${what} cannot be carried onto chat completions (only "function" tools)`, 'unsupported_value');
    }
    // `strict` is kept in the record only: chat's tool spec carries name, description and parameters (as for a chat agent).
    onlyKeys(tool, at, ['type', 'name', 'description', 'parameters', 'strict']);
    const { description, parameters, strict } = tool;
    if (!unset(description) && typeof description !== 'string') refuse(`${at}.description`, 'must be a string');
    if (!unset(parameters) && !isObject(parameters)) refuse(`${at}.parameters`, 'must be a JSON schema object');
    if (!unset(strict) && typeof strict !== 'boolean') refuse(`${at}.strict`, 'must be a boolean');
    return {
      name: stringAt(tool, 'name', at),
      description: typeof description === 'string' ? description : '',
      parameters: isObject(parameters) ? parameters : { type: 'object', properties: {} },
    };
  });
}

/** `tool_choice` in chat's shape. */
export function toolChoice(choice: unknown): unknown {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (!isObject(choice)) refuse('tool_choice', 'must be "auto", "none", "required" or {"type": "function", "name": ...}');
  if (choice.type !== 'function') {
    refuse('tool_choice.type', `${JSON.stringify(choice.type)} cannot be carried onto chat completions (only "function")`, 'unsupported_value');
  }
  onlyKeys(choice, 'tool_choice', ['type', 'name']);
  return { type: 'function', function: { name: stringAt(choice, 'name', 'tool_choice') } };
}

/** `reasoning.effort` is chat's `reasoning_effort`; a summary is recorded only: chat returns none, so none comes back. */
export function reasoningParams(reasoning: unknown): Record<string, unknown> {
  if (unset(reasoning)) return {};
  if (!isObject(reasoning)) refuse('reasoning', 'must be an object');
  onlyKeys(reasoning, 'reasoning', ['effort', 'summary', 'generate_summary']);
  if (unset(reasoning.effort)) return {};
  return { reasoning_effort: stringAt(reasoning, 'effort', 'reasoning') };
}

/** `text.format` is chat's `response_format` (plain text is chat's default, so it sends nothing); `text.verbosity` is chat's `verbosity`. */
export function textParams(text: unknown): Record<string, unknown> {
  if (unset(text)) return {};
  if (!isObject(text)) refuse('text', 'must be an object');
  onlyKeys(text, 'text', ['format', 'verbosity']);
  const out: Record<string, unknown> = {};
  const format = text.format;
  if (!unset(format)) {
    if (!isObject(format)) refuse('text.format', 'must be an object');
    switch (format.type) {
      case 'text':
        onlyKeys(format, 'text.format', ['type']);
        break;
      case 'json_object':
        onlyKeys(format, 'text.format', ['type']);
        out.response_format = { type: 'json_object' };
        break;
      case 'json_schema': {
        onlyKeys(format, 'text.format', ['type', 'name', 'schema', 'strict', 'description']);
        if (!isObject(format.schema)) refuse('text.format.schema', 'must be a JSON schema object');
        const schema: Record<string, unknown> = { name: stringAt(format, 'name', 'text.format'), schema: format.schema };
        if (!unset(format.strict)) schema.strict = format.strict;
        if (!unset(format.description)) schema.description = format.description;
        out.response_format = { type: 'json_schema', json_schema: schema };
        break;
      }
      default:
        refuse('text.format.type', 'must be "text", "json_object" or "json_schema"');
    }
  }
  if (!unset(text.verbosity)) out.verbosity = stringAt(text, 'verbosity', 'text');
  return out;
}
