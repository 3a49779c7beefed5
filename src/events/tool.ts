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

/** Events of the tool family. */
export const ToolEvents = [ToolCalled] as const;
