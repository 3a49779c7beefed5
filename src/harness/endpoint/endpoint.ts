import { UserError } from '../../core/errors.js';
import type { DataOf, NativeProtocol } from '../../events/index.js';

/** Where model calls go. The key is held in memory only; records name the variables, never values. */
export type ModelEndpoint =
  | { scripted: true }
  | {
      scripted: false;
      baseURL: string;
      apiKey: string;
      model: string;
      baseUrlEnv: string;
      apiKeyEnv: string | null;
      /** The endpoint says it is evalog's scripted model (`evalog mock-server`): its results are labelled scripted too. */
      identifiesAsScripted?: boolean;
      /**
       * Protocols the endpoint speaks natively (`--endpoint-protocols`): an agent's request in one
       * of them goes to the endpoint's own route unchanged instead of being translated onto chat
       * completions. Absent or empty = chat only.
       */
      protocols?: readonly NativeProtocol[];
    };

/**
 * What a run that calls no model records (a suite of compute jobs): not scripted, and no endpoint
 * variable. A run of a real endpoint always names one, so the pair says "no model" unambiguously.
 */
export const NO_MODEL: DataOf<'RunStarted'>['model'] = Object.freeze({ name: 'none', scripted: false, baseUrlEnv: null, apiKeyEnv: null });

/** True when a recorded run calls no model (see NO_MODEL). */
export function callsNoModel(model: DataOf<'RunStarted'>['model']): boolean {
  return !model.scripted && model.baseUrlEnv === null;
}

/** The endpoint as recorded in `RunStarted`: names of where settings came from, no values. */
export function modelInfo(endpoint: ModelEndpoint): DataOf<'RunStarted'>['model'] {
  return endpoint.scripted
    ? { name: SCRIPTED_MODEL, scripted: true, baseUrlEnv: null, apiKeyEnv: null }
    : {
        name: endpoint.model,
        scripted: endpoint.identifiesAsScripted === true,
        baseUrlEnv: endpoint.baseUrlEnv,
        apiKeyEnv: endpoint.apiKeyEnv,
        // Absent when chat only, so a run without the flag records what it always did.
        ...(endpoint.protocols?.length ? { protocols: [...endpoint.protocols] } : {}),
      };
}

/** The `owned_by` of the models evalog's scripted model lists at GET /models: how an endpoint says it is one. */
export const SCRIPTED_OWNER = 'evalog-scripted';

/** Model id of the built-in scripted model. */
export const SCRIPTED_MODEL = 'evalog-scripted';

/**
 * The response cache was asked for a run that passes requests through: the cache keys chat
 * completion requests only, so a pass-through call could not be answered from it nor kept in it.
 */
export class PassThroughCacheError extends UserError {
  override name = 'PassThroughCacheError';
  constructor(command?: string) {
    super(
      `evalog${command ? ` ${command}` : ''}: --cache keys chat completion requests only, not with --endpoint-protocols (pass-through calls are always sent)`,
    );
  }
}
