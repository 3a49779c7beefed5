// The scripted model for a user's own suite: a deterministic OpenAI-compatible server on loopback
// that plays the suite with the user's player, so a suite's tests run offline and repeatably.
import { startScriptedModel, type Player, type ScriptedModel, type ScriptedModelOptions } from '../../providers/scripted/index.js';
import { SCRIPTED_MODEL } from '../../harness/endpoint/endpoint.js';
import { playersWith } from '../../app/index.js';
import { MemoryEventLog } from '../../log/memory/index.js';
import type { EventLog } from '../../log/index.js';
import { run, type AnySuite, type RunResult } from '../run.js';

/** Starts the scripted model with `player` before the built-in players (the model judge first); close it when done. */
export function startScriptedFor(player: Player | null, options: Omit<ScriptedModelOptions, 'players'> = {}): Promise<ScriptedModel> {
  return startScriptedModel({ models: [SCRIPTED_MODEL], ...options, players: [...playersWith(player)] });
}

/** Options of `runScripted`. */
export interface RunScriptedOptions {
  suite: AnySuite;
  /** The suite's scripted player (absent: only the built-in players and the fallback answer). */
  player?: Player;
  /** Overrides of the suite's defaults. */
  config?: Record<string, unknown>;
  /** Default `scripted-<suite name>`. */
  runId?: string;
  /** Default a new in-memory log. */
  log?: EventLog;
}

/** Runs a suite on the built-in scripted model into a log (in memory by default): its outputs and the log to inspect. */
export async function runScripted(o: RunScriptedOptions): Promise<RunResult & { log: EventLog }> {
  const log = o.log ?? MemoryEventLog.open();
  const result = await run({
    suite: o.suite,
    log,
    runId: o.runId ?? `scripted-${o.suite.name}`,
    ...(o.player ? { player: o.player } : {}),
    ...(o.config ? { config: o.config } : {}),
  });
  return { ...result, log };
}
