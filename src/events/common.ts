import { z } from 'zod';

/** Token counts as the provider reported them; a field it did not report is null, never 0. */
export const Usage = z
  .object({
    prompt: z.number().int().nonnegative().nullable().describe('prompt_tokens, null when not reported'),
    completion: z.number().int().nonnegative().nullable().describe('completion_tokens, null when not reported'),
    total: z.number().int().nonnegative().nullable().describe('total_tokens, null when not reported'),
    cached: z.number().int().nonnegative().nullable().optional().describe('prompt_tokens_details.cached_tokens, when reported'),
    reasoning: z.number().int().nonnegative().nullable().optional().describe('completion_tokens_details.reasoning_tokens, when reported'),
  })
  .describe('Reported usage of one provider call');
export type Usage = z.infer<typeof Usage>;

/** A sha256 (hex) of a blob stored beside the log. */
export const BlobRef = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .describe('sha256 of a content-addressed blob');

/** Who a call is attributed to in usage reports. */
export const Attribution = z
  .enum(['main', 'query', 'child', 'unknown', 'grading'])
  .describe("main = lead agent, child = sub-agent, query = auxiliary queries, grading = a model-graded check's judge (never the agent's usage)");
export type Attribution = z.infer<typeof Attribution>;

/** A tool call as the model asked for it. */
export const ToolCallRequest = z.object({
  id: z.string().describe('Provider-assigned tool call id'),
  name: z.string(),
  arguments: z.string().describe('Raw JSON arguments text, kept verbatim so replay compares exact bytes'),
});
export type ToolCallRequest = z.infer<typeof ToolCallRequest>;
