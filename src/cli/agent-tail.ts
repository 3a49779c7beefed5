// The part of `evalog show` for a job whose external agent failed: how its process ended and the
// last lines of its stderr and stdout, read from the run's blobs (the file log's or JetStream's
// alike). The tails come bounded and with control characters escaped (projections/stream-tail.ts),
// so a flood or an agent's ANSI escapes cannot swamp or repaint the terminal.
import type { BlobStore } from '../log/index.js';
import { agentEnding, agentOutput, tailNote, type AgentFailure, type AgentOutput, type StreamTail } from '../projections/index.js';

/** A labelled field as `evalog show` prints it. */
export type ShowField = readonly [label: string, text: string];

/** The fields of a failed agent's job, its output read from `blobs`; none when the job's agent did not fail. */
export async function agentFieldsOf(failure: AgentFailure | undefined, blobs: BlobStore): Promise<ShowField[]> {
  return failure === undefined ? [] : agentFields(await agentOutput(failure, blobs));
}

/** How the agent ended, then the tail of its stderr and of its stdout, each with what it leaves out. */
export function agentFields(o: AgentOutput): ShowField[] {
  return [
    ['agent', agentEnding(o)],
    ['stderr', streamText(o.stderrTail)],
    ['stdout', streamText(o.stdoutTail)],
  ];
}

function streamText(t: StreamTail): string {
  if (t.bytes === 0) return '(empty)';
  const note = tailNote(t);
  const text = t.lines === 0 ? '(blank lines only)' : t.text;
  return note === null ? text : `${note}\n${text}`;
}
