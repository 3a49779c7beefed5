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
import { EXIT, InputError, type CliIO } from './io.js';
import { datasetFrom, protocolFrom, protocolOptions } from './memory-eviction-inputs.js';
import { ProgressReporter } from './progress.js';
import { followDuring } from '../log/index.js';
import { finishRun } from './finish-run.js';
import { runFolder } from './run-folder.js';

const LOCAL_ONLY = '# Local-only data: the event log holds full requests (questions and facts).\nlog/\n';

// Credentials are resolved from the protocol's named variables before the dataset is touched.
function qaEndpoint(
  p: Protocol,
  values: { 'base-url'?: string; model?: string; 'api-key-env'?: string; scripted?: boolean },
  env: CliIO['env'],
): ModelEndpoint {
  if (values.scripted) return { scripted: true };
  const urlVar = p.config.qa.base_url_env;
  const baseURL = values['base-url'] ?? env[urlVar];
  if (!baseURL) return { scripted: true };
  const keyName = values['api-key-env'] ?? p.config.qa.api_key_env;
  const apiKey = env[keyName];
  if (!apiKey) throw new InputError(`evalog memory-eviction run-qa: the endpoint needs its API key in ${keyName}, which is not set`);
  return {
    scripted: false,
    baseURL,
    apiKey,
    model: values.model ?? p.config.qa.model,
    baseUrlEnv: values['base-url'] ? '--base-url' : urlVar,
    apiKeyEnv: keyName,
  };
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
  const protocol = protocolFrom(values, io);
  const endpoint = await identifyEndpoint(qaEndpoint(protocol, values, io.env));
  const { dataset, cases } = datasetFrom('run-qa', protocol, values, io);
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
      ? 'evalog: no endpoint configured: the built-in scripted model answers (results are labelled scripted)\n'
      : `evalog: calling model ${endpoint.model} at the endpoint from ${endpoint.baseUrlEnv}\n`,
  );
  const log = await FileEventLog.open({ root: folder.root, onWarning: (m) => io.stderr.write(`evalog: warning: ${m}\n`) });
  try {
    const progress = new ProgressReporter(io.stderr, systemClock.now);
    const common = { endpoint, players: SCRIPTED_PLAYERS, signal: io.signal };
    // The lines follow the log from the run's first event; the log's file exists once this
    // process holds the run's writer lock (executeRun and resumeRun take it again).
    await log.claimWriter(folder.runId);
    const follow = (recordedUpTo: number, body: () => Promise<{ status: 'completed' | 'interrupted' }>) =>
      followDuring(log, folder.runId, (e, recorded) => progress.onEvent(e, recorded), recordedUpTo, body);
    let status: 'completed' | 'interrupted';
    if (resuming) {
      const rec = await loadRecording(log, folder.runId);
      const changed = changedArtifacts(rec.started.config, ctx);
      if (changed.length > 0)
        throw new InputError(`evalog memory-eviction run-qa: refusing to resume ${folder.dir}: changed since it started: ${changed.join(', ')}`);
      io.stderr.write(`evalog: resuming run ${folder.runId}: answered rows are reused, no completed call is sent again\n`);
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
  const protocol = protocolFrom(values, io);
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
    await writeAtomic(join(folder.dir, 'qa.summary.json'), jsonDocument({ ...summary, scripted }));
    await writeAtomic(join(folder.dir, 'qa.stats.json'), jsonDocument({ ...stats, scripted }));
    for (const s of ['official', 'synthetic', 'overall'] as const) {
      const x = stats.suites[s];
      io.stdout.write(
        `${s.padEnd(10)} cases ${x.mcnemar.both_correct + x.mcnemar.both_wrong + x.mcnemar.only_first_correct + x.mcnemar.only_second_correct}  McNemar p ${x.mcnemar.p_value}  difference ${x.bootstrap.mean_difference} [${x.bootstrap.lower}, ${x.bootstrap.upper}]\n`,
      );
    }
    io.stdout.write(`wrote ${GRADE_FILES.join(', ')} to ${folder.dir}\n`);
    return EXIT.ok;
  } finally {
    await log.close();
  }
}
