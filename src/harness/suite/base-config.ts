import { z } from 'zod';
import { AgentConfig } from '../agent-spec/index.js';

/** Default of `provider.maxRetryAfterMs`, also used for runs recorded before it existed. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/**
 * An agent as a run records it: its folder resolved (relative file arguments are found from it,
 * on resume too) and its pass-through list spelt out. The config layer fills both before validation.
 */
const RecordedAgent = AgentConfig.extend({ cwd: z.string().min(1), env: AgentConfig.shape.env.unwrap() });

/** The zod shape of `SuiteConfigBase`; suites extend it with their own keys. */
export const baseConfigShape = {
  repetitions: z.number().int().min(1).max(1000).describe('Repetitions of every case × arm'),
  concurrency: z.number().int().min(1).max(256).describe('Jobs running at once'),
  seed: z.number().int().min(0).describe('Run seed; job seeds derive from it'),
  orderSeed: z.number().int().min(0).describe('Seed of the job-order shuffle'),
  cases: z.array(z.string()).nullable().describe('Subset of case ids, null for all; globs (* and ?) are expanded to ids when the run starts'),
  caseSelection: z
    .object({
      patterns: z.array(z.string()).optional().describe('`cases` as given, before its globs were expanded (a record)'),
      sample: z.number().int().min(1).optional().describe('Cases drawn with the run seed (--sample)'),
      limit: z.number().int().min(1).optional().describe('The first N cases after the patterns and the sample (--limit)'),
    })
    .strict()
    .optional()
    .describe('How `cases` was chosen; `cases` holds the result, which resume and replay use as it is'),
  model: z
    .object({
      temperature: z.number().min(0).max(2),
      maxTokens: z.number().int().min(1),
      reasoningEffort: z.enum(['none', 'minimal', 'low', 'medium', 'high']).nullable().optional().describe('Sent as reasoning_effort when set'),
    })
    .strict(),
  // The limits every worker has. A suite with a limit of its own (an upstream executor's) extends
  // this object in its schema with its key and gives the worker a stop rule over it (stop-rule.ts).
  worker: z
    .object({
      turnCap: z.number().int().min(1).max(1000).describe('Model turns before the worker is stopped'),
      timeLimitMs: z
        .number()
        .int()
        .min(1)
        .describe("Hard deadline of the worker from its start: the model call in flight then is aborted and the worker stops ('deadline')"),
    })
    .strict(),
  provider: z
    .object({
      timeoutMs: z.number().int().min(1).describe('Per-attempt timeout'),
      maxAttempts: z.number().int().min(1).max(20).describe('Attempts per call, first included'),
      backoffMs: z.number().int().min(0).describe('First retry delay'),
      maxBackoffMs: z.number().int().min(0).describe('Retry delay cap'),
      maxRetryAfterMs: z
        .number()
        .int()
        .min(0)
        .default(DEFAULT_MAX_RETRY_AFTER_MS)
        .describe(
          'Longest Retry-After honoured in one wait; a longer one is not waited for: the attempt counts as failed (rate limited) and the normal backoff goes on',
        ),
    })
    .strict(),
  report: z
    .object({
      maxTextChars: z
        .number()
        .int()
        .min(0)
        .max(1_000_000)
        .describe("Characters of each row's input, output, expected value and reason kept in rows.jsonl (the sha256 of the whole is beside); default 2000"),
    })
    .strict()
    .optional()
    .describe('How rows show text; absent = the defaults (so older configs and their hashes are unchanged)'),
  agent: RecordedAgent.optional().describe('One external agent in place of the built-in one (--agent CMD); the suite keeps its arms'),
  agents: z
    .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]*$/), RecordedAgent)
    .optional()
    .describe('External agents as the arms of the run (--agent NAME=CMD)'),
};
