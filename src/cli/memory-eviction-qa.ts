import { join } from 'node:path';
import { FileEventLog } from '../log/file/index.js';
import { fold } from '../projections/projection.js';
import { createOutputDir, exists, jsonDocument, jsonLines, writeAtomic } from '../projections/writer.js';
import type { ModelEndpoint } from '../harness/endpoint.js';
import { resumeRun } from '../harness/replay-resume.js';
import { executeRun, planRun } from '../harness/launch.js';
import { SCRIPTED_PLAYERS, suiteNamed } from '../app/index.js';
import { loadRecording } from '../harness/recording.js';
import { systemClock } from '../core/clock.js';
import { gradeQaRows } from '../suites/memory-eviction/qa-grade.js';
import { qaAnswerRows } from '../suites/memory-eviction/qa-report.js';
import { qaStatsFromRows } from '../suites/memory-eviction/qa-stats.js';
import { memoryEvictionQaSuite, qaRunConfig, type QaContext } from '../suites/memory-eviction/qa-suite.js';
import type { Protocol } from '../suites/memory-eviction/protocol.js';
import { parseCommandArgs } from './args.js';
import { endpointOptions, identifyEndpoint } from './endpoint.js';
import { qaRunMarker } from '../suites/memory-eviction/qa-run-marker.js';
import type { StoredEvent } from '../events/index.js';
import { EXIT, InputError, type CliIO } from './io.js';
import { datasetFrom, protocolFrom, protocolOptions, statusOf, statusSuffix } from './memory-eviction-inputs.js';
import { ProgressReporter } from './progress.js';
import { followDuring } from '../log/index.js';
import { finishRun } from './finish-run.js';
import { runFolder } from './run-folder.js';

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

/** The names of the recorded protocol artifacts whose hash differs now (sorted). */
function changedArtifacts(recorded: unknown, ctx: QaContext): string[] {
  const before = ((recorded as { artifacts?: Record<string, string> }).artifacts ?? {}) as Record<string, string>;
  const now = qaRunConfig(ctx).artifacts;
  return Object.keys({ ...before, ...now })
    .filter((k) => before[k] !== now[k])
    .sort();
}

/** `evalog memory-eviction run-qa`: a new run, or the resume of the run in --out. */
export async function runQaCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs('memory-eviction run-qa', args, { ...protocolOptions, ...endpointOptions, out: { type: 'string' } }, false);
  if (!values.out) throw new InputError('evalog memory-eviction run-qa: give --out DIR (a new folder, or the folder of the run to resume)');
  const protocol = protocolFrom(values, io, 'memory-eviction run-qa');
  const endpoint = await identifyEndpoint(qaEndpoint(protocol, values, io.env));
  const { dataset, cases } = datasetFrom('run-qa', protocol, values, io);
  const status = statusSuffix(protocol);
  const ctx: QaContext = { protocol, cases, datasetSha256: dataset.sha256 };
  const suite = memoryEvictionQaSuite(ctx);
  const folder = runFolder('memory-eviction run-qa', values.out, io.cwd);
  const resuming = await exists(join(folder.dir, 'log', 'events.evlog'));
  if (!resuming) {
    await createOutputDir(folder.dir);
    await writeAtomic(join(folder.dir, '.gitignore'), LOCAL_ONLY);
  }
  io.stderr.write(
    endpoint.scripted
      ? `evalog: --scripted: the built-in scripted model answers (results are labelled scripted)${status}\n`
      : `evalog: calling model ${endpoint.model} at the endpoint from ${endpoint.baseUrlEnv}; protocol ${protocol.config.protocol_id}${status}\n`,
  );
  const log = await FileEventLog.open({ root: folder.root, onWarning: (m) => io.stderr.write(`evalog: warning: ${m}\n`) });
  try {
    const progress = new ProgressReporter(io.stderr, systemClock.now);
    const common = { endpoint, players: SCRIPTED_PLAYERS, signal: io.signal };
    // The lines follow the log from the run's first event; the log's file exists once this
    // process holds the run's writer lock (executeRun and resumeRun take it again).
    await log.claimWriter(folder.runId);
    // qa_run.json is written as soon as the run's RunStarted is in the log (it says what the run is
    // bound to, as upstream's marker does before the first call).
    let marker: Promise<void> | null = null;
    const follow = async (recordedUpTo: number, body: () => Promise<{ status: 'completed' | 'interrupted' }>) => {
      const out = await followDuring(
        log,
        folder.runId,
        (e, recorded) => {
          if (e.type === 'RunStarted' && marker === null) marker = writeQaRunMarker(folder.dir, e);
          progress.onEvent(e, recorded);
        },
        recordedUpTo,
        body,
      );
      await marker;
      return out;
    };
    let status: 'completed' | 'interrupted';
    if (resuming) {
      const rec = await loadRecording(log, folder.runId);
      const changed = changedArtifacts(rec.started.config, ctx);
      if (changed.length > 0)
        throw new InputError(`evalog memory-eviction run-qa: refusing to resume ${folder.dir}: changed since it started: ${changed.join(', ')}`);
      io.stderr.write(`evalog: resuming run ${folder.runId}: answered rows are reused, no completed call is sent again\n`);
      const started = rec.byScope.get('')?.find((e) => e.type === 'RunStarted');
      if (started?.type === 'RunStarted' && !(await exists(join(folder.dir, 'qa_run.json')))) await writeQaRunMarker(folder.dir, started);
      const resume = () => resumeRun(log, folder.runId, { ...common, suiteOf: (name) => (name === suite.name ? suite : suiteNamed(name)) });
      status = (rec.completed ? await resume() : await follow(rec.lastSeq, resume)).status;
    } else {
      const prepared = await suite.configure(suite.defaults()).prepare();
      const started = planRun(prepared, endpoint);
      status = (await follow(0, () => executeRun({ ...common, suite: prepared, log, runId: folder.runId, started }))).status;
    }
    progress.finish();
    return await finishRun(log, folder.runId, folder.dir, status, io, `evalog memory-eviction ${['run-qa', ...args].join(' ')}`);
  } finally {
    await log.close();
  }
}

const GRADE_FILES = ['qa.rows.jsonl', 'qa.summary.json', 'qa.stats.json'] as const;

/** `evalog memory-eviction grade-qa <run-folder>`: verify, grade blind, write the three files. */
export async function gradeQaCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs('memory-eviction grade-qa', args, protocolOptions);
  if (positionals.length !== 1) throw new InputError('evalog memory-eviction grade-qa: name the run folder of run-qa');
  const folder = runFolder('memory-eviction grade-qa', positionals[0]!, io.cwd);
  if (!(await exists(join(folder.dir, 'log', 'events.evlog')))) throw new InputError(`evalog memory-eviction grade-qa: ${folder.dir} has no event log`);
  for (const f of GRADE_FILES)
    if (await exists(join(folder.dir, f)))
      throw new InputError(`evalog memory-eviction grade-qa: ${join(folder.dir, f)} exists already; grade-qa never overwrites`);
  const protocol = protocolFrom(values, io, 'memory-eviction grade-qa');
  const log = await FileEventLog.open({ root: folder.root });
  try {
    const rec = await loadRecording(log, folder.runId);
    const { dataset, cases } = datasetFrom('grade-qa', protocol, values, io);
    const changed = changedArtifacts(rec.started.config, { protocol, cases, datasetSha256: dataset.sha256 });
    if (changed.length > 0) throw new InputError(`evalog memory-eviction grade-qa: the protocol changed since the run: ${changed.join(', ')}`);
    // The answer rows with their types, folded from the log as the suite's report folds them.
    const rows = await fold(qaAnswerRows, log.read(folder.runId));
    const graded = gradeQaRows(protocol, cases, rows);
    const cfg = protocol.config;
    const { summary, stats } = qaStatsFromRows(graded, {
      protocolId: cfg.protocol_id,
      graderVersion: cfg.qa.grader_version,
      qaCapacity: cfg.pool.qa_capacity,
      bootstrap: { seed: cfg.statistics.bootstrap_seed, iterations: cfg.statistics.bootstrap_iterations, alpha: cfg.statistics.alpha },
    });
    await writeAtomic(join(folder.dir, 'qa.rows.jsonl'), jsonLines(graded));
    // The figures say whether evalog's scripted model played them (the protocol's fields, plus this one).
    const scripted = rec.started.model.scripted;
    const protocol_status = statusOf(protocol);
    await writeAtomic(join(folder.dir, 'qa.summary.json'), jsonDocument({ ...summary, scripted, protocol_status }));
    await writeAtomic(join(folder.dir, 'qa.stats.json'), jsonDocument({ ...stats, scripted, protocol_status }));
    for (const s of ['official', 'synthetic', 'overall'] as const) {
      const x = stats.suites[s];
      io.stdout.write(
        `${s.padEnd(10)} cases ${x.mcnemar.both_correct + x.mcnemar.both_wrong + x.mcnemar.only_first_correct + x.mcnemar.only_second_correct}  McNemar p ${x.mcnemar.p_value}  difference ${x.bootstrap.mean_difference} [${x.bootstrap.lower}, ${x.bootstrap.upper}]${statusSuffix(protocol)}\n`,
      );
    }
    io.stdout.write(`wrote ${GRADE_FILES.join(', ')} to ${folder.dir}${statusSuffix(protocol)}\n`);
    return EXIT.ok;
  } finally {
    await log.close();
  }
}
