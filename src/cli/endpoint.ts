import { InputError } from './io.js';
import type { NativeProtocol } from '../events/index.js';
import type { ModelEndpoint } from '../harness/endpoint/endpoint.js';

/** Endpoint flags shared by commands that call a model. */
export const endpointOptions = {
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'api-key-env': { type: 'string' },
  scripted: { type: 'boolean' },
  'endpoint-protocols': { type: 'string' },
} as const;

/** Help lines for the endpoint flags. */
export const ENDPOINT_HELP = `Model endpoint (default: the built-in scripted model, no key needed):
  --base-url URL        OpenAI-compatible endpoint (or EVALOG_BASE_URL / OPENAI_BASE_URL)
  --model ID            model id (or EVALOG_MODEL); required with an endpoint
  --api-key-env NAME    variable holding the API key (default EVALOG_API_KEY, then OPENAI_API_KEY)
  --scripted            use the scripted model even when an endpoint is configured
  --endpoint-protocols LIST
                        protocols the endpoint speaks natively besides chat, of responses,messages
                        (default: chat only): an agent's request in one of them is passed through
                        unchanged to {base-url}/responses or /messages instead of being translated
A suite with endpoint variables of its own (<SUITE>_BASE_URL, <SUITE>_MODEL, <SUITE>_API_KEY) takes
its model and key from those only; a suite's key is never sent to EVALOG_BASE_URL or OPENAI_BASE_URL.
Only the names of these variables are recorded, never their values.`;

/** Resolves where calls go; the key is read from the environment and kept in memory only. */
export function resolveEndpoint(
  command: string,
  values: { 'base-url'?: string; model?: string; 'api-key-env'?: string; scripted?: boolean; 'endpoint-protocols'?: string },
  env: Readonly<Record<string, string | undefined>>,
  suiteEnv?: { baseUrl: string; model: string; apiKey: string },
): ModelEndpoint {
  const protocols = values['endpoint-protocols'] === undefined ? [] : parseEndpointProtocols(command, values['endpoint-protocols']);
  const endpoint = resolveModelEndpoint(command, values, env, suiteEnv);
  if (protocols.length === 0) return endpoint;
  if (endpoint.scripted)
    throw new InputError(`evalog ${command}: --endpoint-protocols needs an endpoint (--base-url); the built-in scripted model is reached by translation`);
  return { ...endpoint, protocols };
}

/** The protocols of `--endpoint-protocols` besides chat (always spoken), in a fixed order; InputError naming the flag. */
export function parseEndpointProtocols(command: string, text: string): NativeProtocol[] {
  const names = text
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const bad = names.find((n) => !ENDPOINT_PROTOCOLS.includes(n));
  if (bad !== undefined || names.length === 0)
    throw new InputError(
      `evalog ${command}: --endpoint-protocols takes a comma-separated list of ${ENDPOINT_PROTOCOLS.join(', ')} (got ${JSON.stringify(bad ?? text)})`,
    );
  return NATIVE.filter((p) => names.includes(p));
}

/** What --endpoint-protocols accepts; chat is always spoken, so naming it changes nothing. */
const ENDPOINT_PROTOCOLS: readonly string[] = ['chat', 'responses', 'messages'];
const NATIVE: readonly NativeProtocol[] = ['responses', 'messages'];

function resolveModelEndpoint(
  command: string,
  values: { 'base-url'?: string; model?: string; 'api-key-env'?: string; scripted?: boolean },
  env: Readonly<Record<string, string | undefined>>,
  suiteEnv?: { baseUrl: string; model: string; apiKey: string },
): ModelEndpoint {
  if (values.scripted) return { scripted: true };
  const urlNames = [...(suiteEnv ? [suiteEnv.baseUrl] : []), 'EVALOG_BASE_URL', 'OPENAI_BASE_URL'];
  const urlSource = values['base-url'] !== undefined ? '--base-url' : urlNames.find((n) => env[n]);
  if (!urlSource) {
    if (values.model !== undefined) throw new InputError(`evalog ${command}: --model needs an endpoint: give --base-url or set EVALOG_BASE_URL`);
    return { scripted: true };
  }
  const baseURL = values['base-url'] ?? env[urlSource]!;
  if (!/^https?:\/\//.test(baseURL)) throw new InputError(`evalog ${command}: the endpoint from ${urlSource} must start with http:// or https://`);
  // A suite's endpoint variable goes with its own model and key variables only, and the generic
  // endpoint (EVALOG_*, OPENAI_*) never gets a suite's key: a key is only sent where it belongs.
  const suiteUrl = suiteEnv !== undefined && urlSource === suiteEnv.baseUrl;
  const viaFlag = urlSource === '--base-url';
  const modelNames = suiteUrl ? [suiteEnv.model] : [...(viaFlag && suiteEnv ? [suiteEnv.model] : []), 'EVALOG_MODEL'];
  const model = values.model ?? modelNames.map((n) => env[n]).find(Boolean);
  if (!model) throw new InputError(`evalog ${command}: an endpoint needs a model id: give --model or set ${modelNames.join(' or ')}`);
  const keyNames =
    values['api-key-env'] !== undefined
      ? [values['api-key-env']]
      : suiteUrl
        ? [suiteEnv.apiKey]
        : [...(viaFlag && suiteEnv ? [suiteEnv.apiKey] : []), 'EVALOG_API_KEY', 'OPENAI_API_KEY'];
  const apiKeyEnv = keyNames.find((n) => env[n]) ?? null;
  if (values['api-key-env'] !== undefined && !apiKeyEnv)
    throw new InputError(`evalog ${command}: --api-key-env names ${values['api-key-env']}, which is not set`);
  return { scripted: false, baseURL, model, apiKey: apiKeyEnv ? env[apiKeyEnv]! : 'no-key', baseUrlEnv: urlSource, apiKeyEnv };
}
