// Builders of small, schema-valid events for log tests. Every builder parses its result with the
// root zod union, so a test can never store an event that the real system could not emit.
import { randomBytes } from 'node:crypto';
import { EvalogEventSchema, eventId, type EvalogEvent } from '../../src/events/index.js';

let counter = 0;

/** A run id unique to this process and call, valid per the RunId schema. */
export function uniqueRunId(prefix = 'run'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}`;
}

const AT = '2025-01-01T00:00:00.000Z';

function valid(event: unknown): EvalogEvent {
  return EvalogEventSchema.parse(event);
}

/** `RunStarted` with id `<runId>/_run/<n>`. */
export function runStarted(runId: string, n = 1, suite = 'smoke'): EvalogEvent {
  return valid({
    id: eventId(runId, undefined, n),
    runId,
    type: 'RunStarted',
    v: 1,
    at: AT,
    actor: 'run',
    data: {
      suite,
      config: { cases: 1 },
      configHash: 'a'.repeat(64),
      seed: 7,
      orderSeed: 8,
      jobs: [{ jobId: 'case-1:a:1', caseId: 'case-1', arm: 'a', repetition: 1, seed: 11 }],
      model: { name: 'scripted', scripted: true, baseUrlEnv: null, apiKeyEnv: null },
      concurrency: 2,
      provenance: {},
    },
  });
}

/** `RunCompleted` with id `<runId>/_run/<n>`. */
export function runCompleted(runId: string, n = 2, status: 'completed' | 'interrupted' = 'completed'): EvalogEvent {
  return valid({
    id: eventId(runId, undefined, n),
    runId,
    type: 'RunCompleted',
    v: 1,
    at: AT,
    actor: 'run',
    data: { status, jobsSucceeded: 1, jobsFailed: 0 },
  });
}

/** `JobStarted` with id `<runId>/<jobId>/<n>`. */
export function jobStarted(runId: string, jobId = 'case-1:a:1', n = 1): EvalogEvent {
  return valid({
    id: eventId(runId, jobId, n),
    runId,
    jobId,
    type: 'JobStarted',
    v: 1,
    at: AT,
    actor: `job/${jobId}`,
    data: { caseId: 'case-1', arm: 'a', repetition: 1, seed: 11 },
  });
}

/** `ToolCalled` with id `<runId>/<jobId>/<n>`; `resultBytes` pads the result to a realistic size. */
export function toolCalled(runId: string, jobId = 'case-1:a:1', n = 1, resultBytes = 64): EvalogEvent {
  return valid({
    id: eventId(runId, jobId, n),
    runId,
    jobId,
    type: 'ToolCalled',
    v: 1,
    at: AT,
    actor: `job/${jobId}/worker`,
    data: {
      callId: `worker/turn-${n}/tool-0`,
      toolCallId: `call_${n}`,
      name: 'read_file',
      arguments: JSON.stringify({ path: `src/file-${n}.ts` }),
      result: 'x'.repeat(resultBytes),
      isError: false,
    },
  });
}

/** `count` job events of one job: a JobStarted then ToolCalled events, numbered from `first`. */
export function jobEvents(runId: string, count: number, jobId = 'case-1:a:1', first = 1): EvalogEvent[] {
  const out: EvalogEvent[] = [];
  for (let n = first; n < first + count; n += 1) {
    out.push(n === 1 ? jobStarted(runId, jobId, n) : toolCalled(runId, jobId, n));
  }
  return out;
}
