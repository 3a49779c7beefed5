import { z } from 'zod';
import { BlobRef } from './common.js';
import { eventSchema } from './envelope.js';

/**
 * An external agent's process was started for the job (one process per job). The command is the
 * one configured (as given, not resolved to this machine's paths); the task is the JSON file the
 * agent read, kept as a blob. Workspace paths, ports and tokens are never recorded.
 */
export const AgentLaunched = eventSchema(
  'AgentLaunched',
  1,
  z.object({
    agent: z.string().describe('Name of the agent (an arm name when agents are the arms; `agent` for a single --agent)'),
    command: z.array(z.string()).min(1).describe('argv as configured'),
    task: BlobRef.describe('The EVALOG_TASK file the agent was given'),
  }),
);

/** How an external agent's process ended, as the job concludes it. */
export const AgentStopReason = z.enum([
  'answered', // exit 0 after at least one model call
  'no_model_calls', // exit 0 without ever calling the model
  'exited_nonzero', // exit code other than 0
  'signalled', // killed by a signal evalog did not send
  'time_limit', // evalog killed the process group at the job's time limit
  'budget', // a budget ran out (BudgetExhausted recorded) before the process ended
  'aborted', // the run was interrupted (Ctrl-C) while the process ran
]);
export type AgentStopReason = z.infer<typeof AgentStopReason>;

/** One captured output stream of the agent: bounded, kept as a blob, with how much there was. */
export const AgentStream = z.object({
  blob: BlobRef.nullable().describe('The kept bytes, null when the stream was empty'),
  bytes: z.number().int().nonnegative().describe('Bytes the process wrote'),
  truncated: z.boolean().describe('True when more was written than evalog keeps'),
});

/** The agent's process ended; its answer is the result file's content, else its stdout. */
export const AgentExited = eventSchema(
  'AgentExited',
  1,
  z.object({
    reason: AgentStopReason,
    code: z.number().int().nullable().describe('Exit code, null when killed by a signal'),
    signal: z.string().nullable().describe('Signal that ended it, e.g. SIGKILL'),
    answer: z.string().nullable().describe('EVALOG_RESULT content, else stdout (trimmed), null when neither'),
    modelCalls: z.number().int().nonnegative().describe('Model requests the agent made through the proxy'),
    toolCalls: z.number().int().nonnegative().describe('Tool calls the agent made over MCP'),
    stdout: AgentStream,
    stderr: AgentStream,
  }),
);

/**
 * On resume or replay, the agent asked for something other than what its record holds at that
 * point. Resume records this and goes on live from here; replay reports it as a divergence.
 */
export const AgentDiverged = eventSchema(
  'AgentDiverged',
  1,
  z.object({
    index: z.number().int().positive().describe("1-based position of the agent's request among its model and tool requests"),
    kind: z.enum(['model', 'tool', 'exit']).describe('What the agent did at that position'),
    field: z.string().describe('First differing field, e.g. `messages[2]`, `tool`, `kind`'),
    detail: z.string(),
  }),
);

/**
 * An external agent's model request in a protocol other than chat completions (OpenAI Responses,
 * Anthropic Messages) was received, as the agent sent it: its body is kept as a blob. Recorded once
 * per request, just before the chat completion request it was translated to (ProviderCallRequested,
 * one per attempt), so a replay compares the agent's own request and not only its translation.
 */
export const AgentRequestReceived = eventSchema(
  'AgentRequestReceived',
  1,
  z.object({
    call: z.string().describe('Causal name of the model call the request became, e.g. `agent/call-3` (its attempts are `agent/call-3/attempt-n`)'),
    protocol: z.enum(['responses', 'messages']).describe('The wire protocol the agent spoke'),
    body: BlobRef.describe("The request body as received (canonical JSON: the agent's key order and spacing are not kept)"),
  }),
);

/** Events of the agent family. */
export const AgentEvents = [AgentLaunched, AgentExited, AgentDiverged, AgentRequestReceived] as const;
