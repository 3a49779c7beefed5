// The run id a run folder's log recorded: a folder renamed or copied keeps it, its name does not.
import { join } from 'node:path';
import { streamEvents } from './stream.js';

/** The run id of the first event in `<dir>/log/events.evlog`, or null when the log holds no event. */
export async function recordedRunId(dir: string): Promise<string | null> {
  const events = streamEvents(
    { file: join(dir, 'log', 'events.evlog'), pollIntervalMs: 50, writer: () => undefined, closed: () => false, register: () => () => {} },
    1,
  );
  for await (const e of events) return e.runId;
  return null;
}
