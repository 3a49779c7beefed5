// What the CLI lends a suite's own commands: the parts of its generic commands that a suite's
// command that is a run needs too (its log, its workers, its progress, its outputs and exit code).
// The suite may not import the CLI; the CLI hands it these when it loads the suite's command, so
// each behaves as in `evalog run` and names its flags and exit codes the same way.
import type { StoredEvent } from '../../events/index.js';
import type { EventLog } from '../../log/index.js';
import type { JetStreamEventLog } from '../../log/jetstream/index.js';
import type { OutputHooksOf } from '../../projections/report.js';
import type { RunOutcome } from '../../projections/run-outcome.js';
import type { ModelEndpoint } from '../endpoint/endpoint.js';
import type { CliIO } from './command.js';
import type { DefinedSuite } from './define.js';

/** A string flag, as node's parseArgs takes it. */
type StringFlag = { readonly type: 'string' };
/** A boolean flag, as node's parseArgs takes it. */
type BooleanFlag = { readonly type: 'boolean' };

/** Who runs a run's jobs: this process, workers elsewhere, or a pool of N workers this process starts (`--workers`). */
export type WorkersMode = 'inline' | 'external' | { pool: number };

/** How a command shows its progress and its result (`--verbose`, `--quiet`, `--json`, and colour). */
export interface OutputMode {
  verbose: boolean;
  quiet: boolean;
  json: boolean;
  color: boolean;
}

/** A run folder: the embedded log's root is its parent, the run id its name. */
export interface RunFolder {
  dir: string;
  root: string;
  runId: string;
}

/** Where an existing run's events live and where its outputs go. */
export interface RunTarget {
  runId: string;
  /** The run folder: outputs (and, embedded, the log). */
  dir: string;
  log: EventLog;
  kind: 'embedded' | 'nats';
}

/** Where a suite's step that is a run is recorded. */
export interface StepLog {
  runId: string;
  log: EventLog;
  /** Set in NATS mode: workers share its job queue. */
  nats: JetStreamEventLog | null;
  /** The log holds the run already: it is resumed, not planned. */
  recorded: boolean;
  workers: WorkersMode;
}

/** What running a step needs besides its log. */
export interface StepRunSettings {
  command: string;
  /** The step's suite, bound to its inputs. */
  suite: DefinedSuite;
  endpoint: ModelEndpoint;
  lease: string | undefined;
  /** Where the run's files go (named in a refusal). */
  dir: string;
  /** Names of the recorded inputs (from the recorded config) that differ from the inputs now. */
  changed(recordedConfig: Record<string, unknown>): string[];
  /** Called once with the run's RunStarted as soon as it is in the log (a new run) or read from it (a resume). */
  started?: (e: Extract<StoredEvent, { type: 'RunStarted' }>) => Promise<void>;
  io: CliIO;
  /** --verbose, --quiet, --json. */
  output?: OutputMode;
}

/** The flags of a step that is a run: where its log is (--nats), who runs its jobs (--workers, --lease), its output. */
export interface StepRunOptions {
  readonly nats: StringFlag;
  readonly workers: StringFlag;
  readonly lease: StringFlag;
  readonly verbose: BooleanFlag;
  readonly quiet: BooleanFlag;
  readonly json: BooleanFlag;
}

/** The endpoint flags of a command that calls a model. */
export interface EndpointOptions {
  readonly 'base-url': StringFlag;
  readonly model: StringFlag;
  readonly 'api-key-env': StringFlag;
  readonly scripted: BooleanFlag;
}

/** The CLI's parts a suite's commands use; the CLI passes them in as its commands use them. */
export interface CliKit {
  /** The flags of a step that is a run, and their help lines. */
  stepRunOptions: StepRunOptions;
  stepRunHelp: string;
  /** The endpoint flags. */
  endpointOptions: EndpointOptions;
  /** Who runs the jobs, parsed before anything is opened (`--workers` needs `--nats`); `url` is null for the embedded log. */
  stepWorkers(command: string, values: { nats?: string; workers?: string }, io: CliIO): { url: string | null; workers: WorkersMode };
  /** The output mode from the flags and, for colour, the environment. */
  outputMode(command: string, values: { verbose?: boolean; quiet?: boolean; json?: boolean }, io: CliIO): OutputMode;
  /** A run folder path, its name checked to be a valid run id. */
  runFolder(command: string, path: string, cwd: string): RunFolder;
  /** Opens an existing run (a folder, or a run id with --nats); `readOnly`: the embedded log refuses every write. */
  openRunTarget(command: string, run: string, values: { nats?: string; out?: string }, io: CliIO, requireLog?: boolean, readOnly?: boolean): Promise<RunTarget>;
  /** The log of run `runId` under `root` (`root/<runId>/log/`), or on NATS at `url`. */
  openStepLog(root: string, runId: string, url: string | null, workers: WorkersMode, io: CliIO): Promise<StepLog>;
  /** The log of run `runId` beside an open run: in its folder (embedded) or in the same NATS log. */
  stepLogBeside(beside: RunTarget, runId: string, workers: WorkersMode, io: CliIO): Promise<StepLog>;
  /** A new step folder, created with a .gitignore that keeps the log local; an existing one is left as it is. */
  prepareStepFolder(dir: string, isNew: boolean, localOnly: string): Promise<void>;
  /** Runs the step's run to its end or an interrupt: planned and started, or resumed from its log. */
  runStep(target: StepLog, settings: StepRunSettings): Promise<'completed' | 'interrupted'>;
  /** A free check of a real endpoint before anything is written. */
  preflightEndpoint(command: string, endpoint: ModelEndpoint): Promise<ModelEndpoint>;
  /** The end of a run: how to continue an interrupted one; a completed one's outputs written and its table printed; the exit code. */
  finishRun(
    log: EventLog,
    runId: string,
    dir: string,
    status: 'completed' | 'interrupted',
    io: CliIO,
    resumeHint: string,
    hooksOf?: OutputHooksOf,
    mode?: OutputMode,
  ): Promise<number>;
  /** The exit code of a completed run, with its reasons on stderr. */
  completedRunExit(outcome: RunOutcome, io: CliIO, failUnder: number | null): number;
  /** Prints a finished run's table (or its summary as JSON) and where its files went. */
  printOutcome(io: CliIO, outputs: { summary: unknown; table(): string }, wrote: string, mode: OutputMode | undefined): void;
  /** The output hooks of a run of `suite` (its own report), the registry's for every other suite. */
  outputHooksOf(suite: DefinedSuite): OutputHooksOf;
}
