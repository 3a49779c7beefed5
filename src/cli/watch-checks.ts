import { CURRENT_VERSION } from '../events/index.js';
import type { EventLog } from '../log/index.js';
import { InputError } from './io.js';

/** Every event type, sorted (what `--type` accepts). */
export const EVENT_TYPES: readonly string[] = Object.keys(CURRENT_VERSION).sort();

/** Refuses a `--type` that is no event type, listing the known ones: a misspelt type would match nothing, silently. */
export function checkEventTypes(command: string, types: readonly string[]): void {
  const known = new Set(EVENT_TYPES);
  const bad = types.find((t) => !known.has(t));
  if (bad !== undefined) throw new InputError(`evalog ${command}: --type ${JSON.stringify(bad)} is not an event type; known types: ${EVENT_TYPES.join(', ')}`);
}

/** Whether the log holds any event of the run (its first event is read, no more). */
export async function runRecorded(log: EventLog, runId: string): Promise<boolean> {
  for await (const _ of log.read(runId)) return true;
  return false;
}
