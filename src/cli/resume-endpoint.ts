import type { DataOf } from '../events/index.js';
import { callsNoModel, type ModelEndpoint } from '../harness/endpoint/endpoint.js';
import { resolveEndpoint } from './endpoint.js';
import { InputError, type CliIO } from './io.js';

type Recorded = DataOf<'RunStarted'>['model'];
type Flags = { 'base-url'?: string; model?: string; 'api-key-env'?: string; scripted?: boolean };

/**
 * The endpoint a resumed run goes on with: the one it started with, read from the same variables
 * it recorded (their names are in the log, never their values), so a resume needs no flags. An
 * endpoint given by a literal `--base-url` was not recorded and must be given again. Flags given
 * anyway must name the same model.
 */
export function resumeEndpoint(
  recorded: Recorded,
  values: Flags,
  env: CliIO['env'],
  suiteEnv?: { baseUrl: string; model: string; apiKey: string },
  /** The command in messages (`evalog retry` goes on with a run's endpoint too). */
  command = 'resume',
): ModelEndpoint {
  // A run of compute jobs calls no model: whatever endpoint is configured goes unused.
  if (callsNoModel(recorded)) return { scripted: true };
  const builtIn = recorded.scripted && recorded.baseUrlEnv === null;
  const literal = recorded.baseUrlEnv?.startsWith('--') === true;
  if (values.scripted || (values['base-url'] === undefined && builtIn)) {
    if (builtIn) return { scripted: true };
    throw new InputError(
      `evalog ${command}: this run called model ${recorded.name} at an endpoint given by ${recorded.baseUrlEnv}, not the built-in scripted model; give that endpoint again`,
    );
  }
  if (values['base-url'] !== undefined)
    return sameModel(recorded, resolveEndpoint(command, { ...values, model: values.model ?? recorded.name }, env, suiteEnv), command);
  if (literal)
    throw new InputError(
      `evalog ${command}: this run called model ${recorded.name} at an endpoint given as a literal ${recorded.baseUrlEnv} URL, which is not recorded; give ${recorded.baseUrlEnv} URL again`,
    );
  const urlEnv = recorded.baseUrlEnv!;
  const baseURL = env[urlEnv];
  if (!baseURL)
    throw new InputError(
      `evalog ${command}: this run called model ${recorded.name} at the endpoint from ${urlEnv}, which is not set; set it again or give --base-url`,
    );
  if (!/^https?:\/\//.test(baseURL)) throw new InputError(`evalog ${command}: the endpoint from ${urlEnv} must start with http:// or https://`);
  const keyEnv = values['api-key-env'] ?? recorded.apiKeyEnv;
  if (keyEnv !== null && !env[keyEnv])
    throw new InputError(`evalog ${command}: this run's API key came from ${keyEnv}, which is not set; set it again (or name another with --api-key-env)`);
  return sameModel(
    recorded,
    {
      scripted: false,
      baseURL,
      model: values.model ?? recorded.name,
      apiKey: keyEnv === null ? 'no-key' : env[keyEnv]!,
      baseUrlEnv: urlEnv,
      apiKeyEnv: keyEnv,
      ...(recorded.scripted ? { identifiesAsScripted: true } : {}),
    },
    command,
  );
}

// The run goes on against the model it started with.
function sameModel(recorded: Recorded, given: ModelEndpoint, command: string): ModelEndpoint {
  if (given.scripted) return given;
  if (given.model !== recorded.name)
    throw new InputError(`evalog ${command}: field model: the run used ${JSON.stringify(recorded.name)}, not ${JSON.stringify(given.model)}`);
  return recorded.scripted ? { ...given, identifiesAsScripted: true } : given;
}
