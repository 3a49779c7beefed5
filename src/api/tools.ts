// Small helpers for a suite's tools: the spec a model is offered, the arguments it sends back
// (raw JSON text, possibly malformed), and the outcomes a tool returns.
import type { ToolOutcome } from '../harness/suite/index.js';
import type { ToolSpec } from '../providers/chat.js';

/** A tool as the model is offered it; `parameters` is a JSON Schema object (no extra keys by default). */
export function defineTool(spec: { name: string; description: string; properties?: Record<string, unknown>; required?: readonly string[] }): ToolSpec {
  const properties = spec.properties ?? {};
  return {
    name: spec.name,
    description: spec.description,
    parameters: { type: 'object', properties, required: [...(spec.required ?? Object.keys(properties))], additionalProperties: false },
  };
}

/** The arguments of a tool call as an object, or null when they are not a JSON object (models send malformed ones). */
export function parseToolArguments(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A successful tool result; `artifact` saves a new revision of the job's work (what the grader sees). */
export function toolResult(result: string, artifact?: string): ToolOutcome {
  return artifact === undefined ? { result, isError: false } : { result, isError: false, artifact };
}

/** A failed tool call, shown to the model as an error it may recover from. */
export function toolError(message: string): ToolOutcome {
  return { result: `error: ${message}`, isError: true };
}
