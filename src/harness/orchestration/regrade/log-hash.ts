import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../core/canonical.js';
import type { EventLog } from '../../../log/index.js';

/**
 * sha256 of a run's log: of its events in log order, each as one canonical JSON line (sorted keys,
 * with its `seq`, then "\n"), the bytes `evalog export <run>` writes, so `evalog export RUN | sha256sum`
 * checks it.
 */
export async function logHash(log: EventLog, runId: string): Promise<string> {
  const h = createHash('sha256');
  for await (const e of log.read(runId)) h.update(`${canonicalJson(e)}\n`);
  return h.digest('hex');
}
