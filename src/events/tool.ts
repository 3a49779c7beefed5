import { z } from 'zod';
import { eventSchema } from './envelope.js';

/** A tool call was executed and returned; one fact per finished call. */
export const ToolCalled = eventSchema(
  'ToolCalled',
  1,
  z.object({
    callId: z.string().describe('Causal name, e.g. `worker/turn-2/tool-0`'),
    toolCallId: z.string().describe('The provider-assigned id the result answers'),
    name: z.string(),
    arguments: z.string().describe('Raw JSON arguments as the model sent them'),
    result: z.string(),
    isError: z.boolean(),
  }),
);

/** A tool call changed the fixture environment (a side effect); recorded after its ToolCalled. */
export const EnvironmentChanged = eventSchema(
  'EnvironmentChanged',
  1,
  z.object({
    callId: z.string().describe('Causal name of the tool call that made the change'),
    effect: z.string().describe('Identity of the side effect, e.g. `apply_migration:M1`; the same identity twice is a duplicated side effect'),
    target: z.string().describe('What changed, e.g. `records/pool_size`, `migrations`, `submission`'),
    value: z.string().describe('The value written (JSON text for structured values)'),
    terminal: z.boolean().describe('True for a final submission: the task ends with it'),
  }),
);

/** Events of the tool family. */
export const ToolEvents = [ToolCalled, EnvironmentChanged] as const;
