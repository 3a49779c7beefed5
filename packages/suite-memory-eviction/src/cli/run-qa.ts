// `evalog memory-eviction run-qa`: one answerer call per case × policy, as a run (embedded or on
// NATS, its jobs here or on workers); rerun with the same --out to resume it.
import { join } from 'node:path';
import type { CliIO, CliKit, ModelEndpoint, StoredEvent } from 'evalog';
import { InputError, jsonDocument, parseCommandArgs, writeAtomic } from 'evalog';
import type { Protocol } from '../protocol.js';
import { qaRunMarker } from '../qa-run-marker.js';
import { memoryEvictionQaSuite, type QaContext, qaRunConfig } from '../qa-suite.js';
import { changedArtifacts } from '../step-config.js';
import { datasetFrom, protocolFrom, protocolOptions, statusSuffix } from './inputs.js';

const COMMAND = 'memory-eviction run-qa';
const LOCAL_ONLY = '# Local-only data: the event log holds full requests (questions and facts).\nlog/\n';

/**
 * The answerer's endpoint, resolved before the dataset is touched. Its settings are the protocol's
 * alone: the model is `qa.model` (no --model), and the endpoint and key come from the config's
 * `base_url_env` and `api_key_env` only, never from another endpoint's variables (EVALOG_*,
 * OPENAI_*). A pinned protocol takes no endpoint flags at all. evalog's scripted model answers only
 * with an explicit --scripted.
 */
export function qaEndpoint(
  p: Protocol,
  values: { 'base-url'?: string; model?: string; 'api-key-env'?: string; scripted?: boolean },
  env: CliIO['env'],
): ModelEndpoint {
  const cmd = 'evalog memory-eviction run-qa';
  const qa = p.config.qa;
  if (values.model !== undefined)
    throw new InputError(`${cmd}: --model cannot replace the protocol's model (qa.model ${JSON.stringify(qa.model)} in ${p.files.config})`);
  if (p.source.pinned) {
    const flag = values['base-url'] !== undefined ? '--base-url' : values['api-key-env'] !== undefined ? '--api-key-env' : null;
    if (flag) throw new InputError(`${cmd}: ${flag} cannot override the pinned protocol's endpoint settings (set ${qa.base_url_env} and ${qa.api_key_env})`);
  }
  if (values.scripted) return { scripted: true };
  const keyName = values['api-key-env'] ?? qa.api_key_env;
  // As upstream's provider reads them: a value of only whitespace is missing.
  const baseURL = (values['base-url'] ?? env[qa.base_url_env] ?? '').trim();
  const apiKey = (env[keyName] ?? '').trim();
  const missing = [...(baseURL === '' ? [qa.base_url_env] : []), ...(apiKey === '' ? [keyName] : [])];
  if (missing.length > 0)
    throw new InputError(`${cmd}: missing provider environment variables: ${missing.join(', ')} (or give --scripted for evalog's scripted model)`);
  if (!/^https?:\/\//.test(baseURL))
    throw new InputError(`${cmd}: the endpoint from ${values['base-url'] ? '--base-url' : qa.base_url_env} must start with http:// or https://`);
  return {
    scripted: false,
    baseURL,
    apiKey,
    model: qa.model,
    baseUrlEnv: values['base-url'] ? '--base-url' : qa.base_url_env,
    apiKeyEnv: keyName,
  };
}

/** Writes qa_run.json from the run's RunStarted event (nothing for a run recorded before it had the record). */
async function writeQaRunMarker(dir: string, started: Extract<StoredEvent, { type: 'RunStarted' }>): Promise<void> {
  const marker = qaRunMarker(started);
  if (marker) await writeAtomic(join(dir, 'qa_run.json'), jsonDocument(marker));
}

/** `evalog memory-eviction run-qa`: a new run, or the resume of the run in --out. */
export async function runQaCommand(args: string[], io: CliIO, kit: CliKit): Promise<number> {
  const { values } = parseCommandArgs(COMMAND, args, { ...protocolOptions, ...kit.endpointOptions, ...kit.stepRunOptions, out: { type: 'string' } }, false);
  if (!values.out) throw new InputError(`evalog ${COMMAND}: give --out DIR (a new folder, or the folder of the run to resume)`);
  const { url, workers } = kit.stepWorkers(COMMAND, values, io);
  const output = kit.outputMode(COMMAND, values, io);
  const protocol = protocolFrom(values, io, COMMAND);
  const endpoint = await kit.preflightEndpoint(COMMAND, qaEndpoint(protocol, values, io.env));
  const { dataset, cases } = datasetFrom('run-qa', protocol, values, io);
  const status = statusSuffix(protocol);
  const ctx: QaContext = { protocol, cases, datasetSha256: dataset.sha256 };
  const suite = memoryEvictionQaSuite(ctx);
  const folder = kit.runFolder(COMMAND, values.out, io.cwd);
  const target = await kit.openStepLog(folder.root, folder.runId, url, workers, io);
  try {
    await kit.prepareStepFolder(folder.dir, !target.recorded, LOCAL_ONLY);
    io.stderr.write(
      endpoint.scripted
        ? `evalog: --scripted: the built-in scripted model answers (results are labelled scripted)${status}\n`
        : `evalog: calling model ${endpoint.model} at the endpoint from ${endpoint.baseUrlEnv}; protocol ${protocol.config.protocol_id}${status}\n`,
    );
    const now = qaRunConfig(ctx).artifacts;
    const outcome = await kit.runStep(target, {
      command: COMMAND,
      suite,
      endpoint,
      lease: values.lease,
      dir: folder.dir,
      changed: (recorded) => changedArtifacts(recorded.artifacts as Record<string, string> | undefined, now),
      // qa_run.json is written as soon as the run's RunStarted is in the log (it says what the run is
      // bound to, as upstream's marker does before the first call); the outputs write it again at the end.
      started: (e) => writeQaRunMarker(folder.dir, e),
      io,
      output,
    });
    return await kit.finishRun(target.log, folder.runId, folder.dir, outcome, io, `evalog ${COMMAND} ${args.join(' ')}`, undefined, output);
  } finally {
    await target.log.close();
  }
}
