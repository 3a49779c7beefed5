// Which model a worker calls for a run. A run records its model by name only (never the endpoint
// or key), so a worker brings its own endpoint and serves runs of that model; a run of the built-in
// scripted model is played by the worker's own scripted server, as an embedded run would.
import type { ModelCaller } from '../../../providers/caller.js';
import { openAiCaller } from '../../../providers/openai-caller.js';
import { startScriptedModel, type Player, type ScriptedModel, type ScriptedModelOptions } from '../../../providers/scripted/index.js';
import type { Clock } from '../../../core/clock.js';
import { callsNoModel, SCRIPTED_MODEL, type ModelEndpoint } from '../../endpoint/endpoint.js';
import { noModelCaller } from '../../provider/refusing-caller.js';
import type { CallerFor } from './worker.js';

/** A worker's callers and what they hold open. */
export interface WorkerCallers {
  callerFor: CallerFor;
  close(): Promise<void>;
}

/** Callers for a worker configured with `endpoint`; `players` (the app's) play runs of the built-in scripted model. */
export function workerCallers(
  endpoint: ModelEndpoint,
  clock: Clock,
  players: readonly Player[],
  scripted: Omit<ScriptedModelOptions, 'players'> = {},
): WorkerCallers {
  let server: Promise<ScriptedModel> | undefined;
  let real: ModelCaller | undefined;
  return {
    async callerFor(started) {
      // A run of compute jobs calls no model: any worker can take its jobs, whatever its endpoint.
      if (callsNoModel(started.model)) return noModelCaller;
      // The built-in scripted model (no endpoint recorded) is played here; an endpoint that is a scripted model is called like any other.
      if (started.model.scripted && started.model.baseUrlEnv === null) {
        server ??= startScriptedModel({ ...scripted, players: [...players], models: [SCRIPTED_MODEL] });
        const s = await server;
        return openAiCaller({ baseURL: s.url, apiKey: 'scripted-no-key', clock });
      }
      if (endpoint.scripted) return { refuse: `run calls model ${started.model.name}; this worker has no endpoint (give --base-url and --model)` };
      if (endpoint.model !== started.model.name) return { refuse: `run calls model ${started.model.name}; this worker serves ${endpoint.model}` };
      real ??= openAiCaller({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, clock });
      return real;
    },
    async close() {
      if (server) await (await server).close();
    },
  };
}
