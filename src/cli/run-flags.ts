// The flags of `evalog run`, in one place: their declarations, their help, and what they give the
// run. `readRunFlags` parses them once and returns every setting they make, each at its default
// when its flag is absent (no cache, the embedded log, jobs inline, output to a terminal, no
// checks), so the command reads as the run's steps. Every flag overrides its own config key alone
// (the config file's other keys stay) and is range-checked here, so a bad value is a one-line
// message naming the flag before anything is written. A suite's own flags (its SuiteCli's
// runFlags) are parsed beside them: the run loads the named suite's plugin first, and every plugin
// only when a flag is unknown to those, so another suite's flag is refused by name.
import { parseArgs } from 'node:util';
import {
  builtInNames,
  ensureSuite,
  isSuiteFilePath,
  loadAllPlugins,
  suiteCli,
  suiteClis,
  type AppliedRunFlags,
  type DefinedSuite,
  type RunFlagOption,
} from '../app/index.js';
import { AgentFlagError, parseAgentFlag, type AgentCommandSpec } from '../harness/agent-spec/index.js';
import type { ConfigOverrides } from '../harness/orchestration/config.js';
import { joinNegativeValues } from '../harness/suite/argv.js';
import type { OutputMode, SuiteConfigBase, WorkersMode } from '../harness/suite/index.js';
import { CACHE_HELP, takeCacheFlags, type CacheChoice } from './cache-flags.js';
import { ENDPOINT_HELP, endpointOptions } from './endpoint.js';
import { InputError, intFlag, parseCommandArgs, type CliIO } from './io.js';
import { NATS_HELP, natsOption, natsUrl } from './log-target.js';
import { OUTPUT_HELP, OUTPUT_OPTIONS, outputMode } from './output-flags.js';
import { RUN_CHECK_HELP, RUN_CHECK_OPTIONS, runChecks, type RunChecks } from './run-checks.js';
import { WORKERS_HELP, workersMode, workersOptions } from './scale-out.js';
import { WATCH_HELP } from './watch-help.js';

/** The parser's declarations of the run's shape: repetitions, concurrency, seed, cases, sampling, agents. */
export const PLAN_OPTIONS = {
  config: { type: 'string' },
  repetitions: { type: 'string' },
  concurrency: { type: 'string' },
  seed: { type: 'string' },
  case: { type: 'string', multiple: true },
  limit: { type: 'string' },
  sample: { type: 'string' },
  temperature: { type: 'string' },
  'max-tokens': { type: 'string' },
  timeout: { type: 'string' },
  'max-attempts': { type: 'string' },
  'reasoning-effort': { type: 'string' },
  agent: { type: 'string', multiple: true },
} as const;

/** Help lines (in `evalog run --help`). */
export const PLAN_HELP = `  --config PATH         suite config (.yaml/.yml as YAML, else JSON); flags below override it
  --repetitions N       repetitions of every case × arm
  --concurrency N       jobs at once
  --seed N              run seed (job seeds derive from it)
  --case ID|GLOB        run only these cases (repeatable; * and ? match any run of characters
                        and one character: --case 'json-*'); a glob that matches nothing is refused
  --sample N            N cases drawn with the run seed (after --case; all when there are fewer)
  --limit N             the first N cases, in the suite's order, after --case and --sample
  --temperature X       sampling temperature, 0 to 2 (config model.temperature)
  --max-tokens N        most tokens a reply may have (config model.maxTokens)
  --reasoning-effort E  none, minimal, low, medium or high, sent as reasoning_effort (config
                        model.reasoningEffort)
  --timeout T           per-attempt timeout: 30s, 1.5s, 2m, 500ms, or milliseconds alone
                        (config provider.timeoutMs)
  --max-attempts N      attempts per model call, the first included, 1 to 20 (config
                        provider.maxAttempts)
  --agent "CMD ARGS"    run this external agent in place of the built-in one (one process
                        per job; its model calls go through a recording proxy, its tools
                        over MCP; see docs/agents.md)
  --agent NAME="CMD"    agents as the arms of the run, compared paired (repeatable)`;

// The suites' own flags are those of the suites loaded when the text is made (`run --help` loads every plugin first).
export const runHelp = (): string => `Usage: evalog run <suite | suite file> [options]

Runs a suite (paired arms × cases × repetitions) and writes rows.jsonl, summary.json,
usage.json and run.json, with the event log, into a new run folder.

Suites: ${builtInNames().join(', ')}
A suite file (.ts, .mts, .js, .mjs) is a module whose default export is a suite; TypeScript
needs no build step. run.json records its path (relative to this folder) and sha256; resume,
replay and workers refuse the run once the file changed. A \`player\` it exports plays the
suite on the built-in scripted model.

Options:
  --out DIR             new run folder (default runs/<suite>-<time>); its name is the run id
${PLAN_HELP}
${CACHE_HELP}
${suiteRunHelp()}
${NATS_HELP}
${WORKERS_HELP}
${ENDPOINT_HELP}
${OUTPUT_HELP}
${RUN_CHECK_HELP}
${WATCH_HELP}
`;

/** The flags of `evalog run` that are not a suite's own. */
const RUN_OPTIONS = {
  out: { type: 'string' },
  ...PLAN_OPTIONS,
  ...endpointOptions,
  ...natsOption,
  ...workersOptions,
  ...OUTPUT_OPTIONS,
  ...RUN_CHECK_OPTIONS,
} as const;

/** run's flags with those of the suites loaded now. */
const runOptions = () => ({ ...RUN_OPTIONS, ...suiteRunOptions() });
const parseRun = (args: string[]) => parseCommandArgs('run', args, runOptions());

/**
 * Parses run's flags loading no plugin but the named suite's: its name (the first positional, as
 * far as the flags known so far tell) has its plugin loaded, then the flags of the suites loaded
 * are parsed. A flag none of them knows loads every plugin and is parsed again, so another suite's
 * flag is refused naming that suite (applySuiteFlags) and a misspelt one is offered the nearest of all.
 */
async function parseRunArgs(args: string[]): Promise<ReturnType<typeof parseRun>> {
  const known = runOptions();
  const named = parseArgs({ args: joinNegativeValues(args, known), options: known, strict: false, allowPositionals: true }).positionals[0];
  // A plugin that cannot be loaded is named by resolveSuite, after --help and the arguments' checks.
  if (named !== undefined && !isSuiteFilePath(named)) await ensureSuite(named).catch(() => undefined);
  try {
    return parseRun(args);
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw err;
    // Every plugin that loads is loaded (one that does not cannot own the flag here).
    await loadAllPlugins().catch(() => undefined);
    return parseRun(args);
  }
}

/** Everything the flags of one `evalog run` give, each at its default when its flag is absent. */
export interface RunFlags {
  /** The parsed values, the suite's own flags' among them (runOverrides turns them into config). */
  values: ReturnType<typeof parseRun>['values'];
  /** The suite's name or suite file, as given. */
  suite: string;
  /** --cache: null for none. */
  cache: CacheChoice | null;
  mode: OutputMode;
  checks: RunChecks;
  /** --nats (or EVALOG_NATS_URL): null for the embedded log. */
  nats: string | null;
  /** --workers: 'inline' (this process runs every job) unless given with --nats. */
  workers: WorkersMode;
}

/** Reads run's arguments: the flags' settings, or 'help' when --help was asked (its text printed). */
export async function readRunFlags(argv: string[], io: CliIO): Promise<RunFlags | 'help'> {
  const { args, cache } = takeCacheFlags('run', argv, io);
  const { values, positionals } = await parseRunArgs(args);
  if (values.help) {
    // Every suite's own flags are listed, as far as their plugins load.
    await loadAllPlugins().catch(() => undefined);
    io.stdout.write(runHelp());
    return 'help';
  }
  const mode = outputMode('run', values, io);
  const [suite, ...extra] = positionals;
  if (!suite) throw new InputError(`evalog run: name a suite (${builtInNames().join(', ')}) or a suite file`);
  if (extra.length > 0) throw new InputError(`evalog run: unexpected argument ${JSON.stringify(extra[0])}`);
  const checks = runChecks('run', values);
  const nats = natsUrl(values, io.env);
  const workers = workersMode('run', values.workers, nats !== null);
  if (cache && workers !== 'inline')
    throw new InputError('evalog run: --cache works in this process only, not with --workers (workers call the model themselves)');
  return { values, suite, cache: cache ?? null, mode, checks, nats, workers };
}

/** What the declarations parse to. */
export type PlanValues = { [K in keyof typeof PLAN_OPTIONS]?: (typeof PLAN_OPTIONS)[K] extends { multiple: true } ? string[] : string };

/** The run's flags turned into config overrides, with what the suite's own flags gave (model id, notices). */
export interface RunOverrides {
  overrides: ConfigOverrides & Record<string, unknown>;
  /** The endpoint's model id from the suite's --model, when it has one. */
  model: string | undefined;
  notices: string[];
}

/**
 * The config overrides of every flag given: those of the plan's flags, then the suite's own (which
 * may set any key of its config). Only the keys given are set.
 */
export function runOverrides(suite: DefinedSuite, values: PlanValues & Readonly<Record<string, unknown>>, cwd: string): RunOverrides {
  const own = applySuiteFlags(suite, values, cwd);
  const sample = values.sample === undefined ? undefined : intFlag('run', 'sample', values.sample, 1, 1);
  const limit = values.limit === undefined ? undefined : intFlag('run', 'limit', values.limit, 1, 1);
  const overrides: ConfigOverrides = {
    ...(values.repetitions === undefined ? {} : { repetitions: intFlag('run', 'repetitions', values.repetitions, 1, 1, 1000) }),
    ...(values.concurrency === undefined ? {} : { concurrency: intFlag('run', 'concurrency', values.concurrency, 1, 1, 256) }),
    ...(values.seed === undefined ? {} : { seed: intFlag('run', 'seed', values.seed, 0, 0) }),
    ...(values.case ? { cases: values.case } : {}),
    ...(sample !== undefined || limit !== undefined
      ? { caseSelection: { ...(sample !== undefined ? { sample } : {}), ...(limit !== undefined ? { limit } : {}) } }
      : {}),
    ...samplingOverrides(values, { name: suite.name, fixedSampling: suiteCli(suite.name).fixedSampling }),
    ...agentOverrides(values.agent, cwd),
  };
  return { overrides: { ...overrides, ...own.overrides }, model: own.model, notices: own.notices ?? [] };
}

const SAMPLING_FLAGS = ['temperature', 'max-tokens', 'timeout', 'max-attempts', 'reasoning-effort'] as const;
const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high'] as const;
/** Longest `--timeout`: a day; a call waited on longer is a hung call. */
const MAX_TIMEOUT_MS = 86_400_000;

type SamplingValues = Pick<PlanValues, (typeof SAMPLING_FLAGS)[number]>;

/**
 * Config overrides from the sampling and call-policy flags; only the keys given are set. A suite
 * that fixes these itself (`fixedSampling`: why) refuses them by name, so a flag is never silently
 * without effect.
 */
export function samplingOverrides(
  values: SamplingValues,
  suite?: { name: string; fixedSampling?: string | undefined },
): Pick<ConfigOverrides, 'model' | 'provider'> {
  const given = SAMPLING_FLAGS.find((f) => values[f] !== undefined);
  if (given !== undefined && suite?.fixedSampling !== undefined)
    throw new InputError(`evalog run: --${given} does not apply to suite ${suite.name}: ${suite.fixedSampling}`);
  const model: Partial<SuiteConfigBase['model']> = {};
  const provider: Partial<SuiteConfigBase['provider']> = {};
  if (values.temperature !== undefined) model.temperature = temperatureFlag(values.temperature);
  if (values['max-tokens'] !== undefined) model.maxTokens = intFlag('run', 'max-tokens', values['max-tokens'], 1, 1, 1_000_000);
  if (values['reasoning-effort'] !== undefined) model.reasoningEffort = effortFlag(values['reasoning-effort']);
  if (values.timeout !== undefined) provider.timeoutMs = durationMs('timeout', values.timeout);
  if (values['max-attempts'] !== undefined) provider.maxAttempts = intFlag('run', 'max-attempts', values['max-attempts'], 1, 1, 20);
  return { ...(Object.keys(model).length > 0 ? { model } : {}), ...(Object.keys(provider).length > 0 ? { provider } : {}) };
}

function temperatureFlag(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value.trim())) throw new InputError(`evalog run: --temperature must be a number from 0 to 2, got ${JSON.stringify(value)}`);
  const t = Number(value);
  if (t > 2) throw new InputError(`evalog run: --temperature must be a number from 0 to 2, got ${t}`);
  return t;
}

function effortFlag(value: string): (typeof EFFORTS)[number] {
  const effort = EFFORTS.find((e) => e === value);
  if (!effort) throw new InputError(`evalog run: --reasoning-effort must be one of ${EFFORTS.join(', ')}, got ${JSON.stringify(value)}`);
  return effort;
}

/** A duration flag in milliseconds: `500ms`, `30s`, `1.5s`, `2m`, or a bare number of milliseconds. */
export function durationMs(flag: string, value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  const bad = (why: string) => new InputError(`evalog run: --${flag} ${why} (e.g. 30s, 1.5s, 2m, 500ms, or milliseconds alone), got ${JSON.stringify(value)}`);
  if (!m) throw bad('must be a duration');
  const ms = Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 1));
  if (ms < 1 || ms > MAX_TIMEOUT_MS) throw bad('must be from 1ms to 24 hours');
  return ms;
}

/** Config overrides from `--agent` values: one unnamed agent in place of the built-in one, or named agents as the arms. */
function agentOverrides(values: readonly string[] | undefined, cwd: string): { agent?: AgentCommandSpec; agents?: Record<string, AgentCommandSpec> } {
  if (!values || values.length === 0) return {};
  const parsed = values.map((v) => {
    try {
      return parseAgentFlag(v);
    } catch (err) {
      throw err instanceof AgentFlagError ? new InputError(`evalog run: ${err.message}`, { cause: err }) : err;
    }
  });
  // Relative file arguments resolve from the folder the run starts in.
  const spec = (command: string[]): AgentCommandSpec => ({ command, cwd, env: [] });
  const unnamed = parsed.filter((p) => p.name === null);
  if (unnamed.length > 0) {
    if (parsed.length > 1)
      throw new InputError('evalog run: --agent is given more than once, so each must be named: --agent NAME="CMD ARGS" (agents as the arms)');
    return { agent: spec(unnamed[0]!.command) };
  }
  const agents: Record<string, AgentCommandSpec> = {};
  for (const p of parsed) {
    if (agents[p.name!]) throw new InputError(`evalog run: --agent ${p.name} is given twice`);
    agents[p.name!] = spec(p.command);
  }
  return { agents };
}

/** The own flags of every loaded suite, for the parser of `evalog run`; `--model` is repeatable when a suite makes it so. */
export function suiteRunOptions(): { model: { type: 'string'; multiple: true } } {
  const out: Record<string, RunFlagOption> = {};
  for (const cli of Object.values(suiteClis())) Object.assign(out, cli.runFlags?.options);
  return out as { model: { type: 'string'; multiple: true } };
}

/** Help lines of every loaded suite's own flags. */
export function suiteRunHelp(): string {
  return Object.values(suiteClis())
    .flatMap((s) => (s.runFlags ? [s.runFlags.help] : []))
    .join('\n');
}

/** Config overrides from the suite's own flags, and the model id for the endpoint (from --model). */
function applySuiteFlags(suite: DefinedSuite, values: Readonly<Record<string, unknown>>, cwd: string): AppliedRunFlags {
  const own = suiteCli(suite.name).runFlags;
  const clis = suiteClis();
  // Another suite's flag is refused by name, whether this suite has flags of its own or not.
  for (const flag of Object.keys(suiteRunOptions())) {
    if (flag === 'model' || values[flag] === undefined || own?.options[flag]) continue;
    const owner = Object.entries(clis).find(([, s]) => s.runFlags?.options[flag])?.[0] ?? 'another suite';
    throw new InputError(`evalog run: --${flag} is a flag of suite ${owner}, not of ${suite.name}`);
  }
  if (own) return own.apply(values, cwd);
  const model = values.model as string | string[] | undefined;
  if (Array.isArray(model) && model.length > 1) throw new InputError(`evalog run: --model is given ${model.length} times; suite ${suite.name} runs one model`);
  return { overrides: {}, model: Array.isArray(model) ? model[0] : model };
}
