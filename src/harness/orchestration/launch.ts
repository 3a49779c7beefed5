import { createActor, toPromise } from 'xstate';
import type { DataOf } from '../../events/index.js';
import type { EventLog } from '../../log/index.js';
import { realSleep, type RemoteJobs, type Sleep } from '../kernel/env.js';
import { planJobs } from '../run/logic.js';
import { runMachine, type JobRunner, type RunOutput } from '../run/machine.js';
import type { BreakerOptions } from '../run/breaker.js';
import type { ModelCaller } from '../../providers/caller.js';
import { openAiCaller } from '../../providers/openai-caller.js';
import { startScriptedModel, type Player, type ScriptedModelOptions } from '../../providers/scripted/index.js';
import type { DefinedSuite, PreparedSuite } from '../suite/define.js';
import { hashOf } from '../../core/canonical.js';
import { systemClock, type Clock } from '../../core/clock.js';
import { merged } from '../../core/objects.js';
import { modelInfo, NO_MODEL, PassThroughCacheError, SCRIPTED_MODEL, type ModelEndpoint } from '../endpoint/endpoint.js';
import { Journal } from '../kernel/journal.js';
import { collectProvenance, type PluginVersion } from './provenance.js';
import { sentModelInfo } from './models-sent.js';
import { coordinatorCaller, noModelCaller } from '../provider/refusing-caller.js';
import { jobJournal, type ProviderPort } from '../kernel/ports.js';
import { lazyGateway } from '../external/gateway-lease.js';
import { AGENTS_KEY, agentProvenance } from '../external/provenance.js';
import { cachingCaller, type ResponseStore } from '../cache/index.js';
import { runRetries, type RetryPass, type RunPass } from './retry/index.js';

/** What a run needs from its caller. */
export interface ExecuteOptions {
  /** The run's suite with its cases loaded for the run's config (`prepareRecorded` for a recorded run). */
  suite: PreparedSuite;
  log: EventLog;
  runId: string;
  started: DataOf<'RunStarted'>;
  endpoint: ModelEndpoint;
  /** Replaces the endpoint's caller (replay uses one that refuses to call). */
  caller?: ModelCaller;
  clock?: Clock;
  sleep?: Sleep;
  signal?: AbortSignal;
  /** Options of the scripted model when it plays (latency, faults, ...). */
  scripted?: Omit<ScriptedModelOptions, 'players'>;
  /** The scripted model's players (the app's registry); needed only when the built-in scripted model plays. */
  players?: readonly Player[];
  /** The journal to run against: `Journal.replay`/`Journal.resume` for a recorded run; a live one by default. */
  journal?: Journal;
  /** Scaled-out runs: jobs are queued for workers instead of run here. */
  remote?: RemoteJobs;
  /** The response cache (`--cache`): the endpoint's calls are answered from it when it can. Not with `caller`. */
  cache?: ResponseStore;
  /** The run's retries (`evalog retry`), run in order after its first pass: the recorded ones, and a new one last. */
  retries?: readonly RetryPass[];
  /** Jobs at once, instead of the config's concurrency (`resume --concurrency`; the plan is unchanged). */
  window?: number;
  /** Stop after this many failed jobs in a row (absent: never; the CLI's default is 10). */
  breaker?: BreakerOptions;
}

/** The built-in scripted model was to play but no players were given (a wiring error, not bad input). */
export class NoScriptedPlayersError extends Error {
  override name = 'NoScriptedPlayersError';
  constructor() {
    super('the scripted model plays this run but executeRun was given no players');
  }
}

/**
 * Builds the `RunStarted` data of a new run: the plan and everything needed to rebuild it.
 * `plugins`: the suite plugins loaded (the app's registry), whose versions its provenance records.
 */
export function planRun(suite: PreparedSuite, endpoint: ModelEndpoint, plugins: readonly PluginVersion[] = []): DataOf<'RunStarted'> {
  const { config } = suite;
  const all = suite.cases.map((c) => c.id);
  const caseIds = config.cases ? all.filter((id) => config.cases!.includes(id)) : all;
  const jobs = planJobs(caseIds, suite.arms, config.repetitions, config.seed, config.orderSeed).map((j) => {
    const meta = suite.jobMeta(j.caseId, j.arm);
    // merged, not a spread: the plan is kept for the whole run, and each spread job held a hidden class of its own on Node 20.
    return meta === undefined ? j : merged<typeof j & { meta: typeof meta }>(j, { meta });
  });
  return {
    suite: suite.name,
    config,
    configHash: hashOf(config),
    seed: config.seed,
    orderSeed: config.orderSeed,
    jobs,
    // The model the requests send, which a suite's cells or arms may name (not always the endpoint's);
    // a suite of compute jobs calls no model, whatever endpoint is configured.
    model: suite.shape === 'compute' ? { ...NO_MODEL } : sentModelInfo(modelInfo(endpoint), suite, jobs),
    concurrency: config.concurrency,
    provenance: { ...collectProvenance(suite.manifests, plugins), ...suite.provenance() },
  };
}

/** A recorded run's suite, prepared from the config its `RunStarted` holds (validated by the suite's schema). */
export function prepareRecorded(suite: DefinedSuite, started: DataOf<'RunStarted'>): Promise<PreparedSuite> {
  return suite.configure(started.config).prepare();
}

/** Runs (or replays/resumes) a planned run's actors to the end or to an interrupt. */
export async function executeRun(o: ExecuteOptions): Promise<RunOutput> {
  const clock = o.clock ?? systemClock;
  const signal = o.signal ?? new AbortController().signal;
  const { config } = o.suite;
  // A recorded pass-through run resumed or retried with --cache: refused before any effect.
  if (o.cache && !o.caller && o.started.model.protocols?.length) throw new PassThroughCacheError();
  // No effect (a model call, a queued job) before this process holds the run's writer lock.
  if (o.journal?.mode !== 'replay') await o.log.claimWriter(o.runId);
  const computes = o.suite.shape === 'compute';
  const plays = o.endpoint.scripted && !o.caller && !o.remote && !computes;
  if (plays && !o.players) throw new NoScriptedPlayersError();
  const server = plays ? await startScriptedModel({ ...o.scripted, players: [...o.players!], models: [SCRIPTED_MODEL] }) : null;
  const gateway = lazyGateway();
  try {
    const live = (c: ModelCaller) => (o.cache ? cachingCaller(c, o.cache, clock) : c);
    const caller =
      o.caller ??
      (computes
        ? noModelCaller
        : o.remote
          ? coordinatorCaller
          : o.endpoint.scripted
            ? live(openAiCaller({ baseURL: server!.url, apiKey: 'scripted-no-key', clock }))
            : live(openAiCaller({ baseURL: o.endpoint.baseURL, apiKey: o.endpoint.apiKey, clock })));
    const journal = o.journal ?? Journal.live(o.log, o.runId, { clock });
    const provider: Omit<ProviderPort, 'seed'> = {
      caller,
      model: o.started.model.name,
      sampling: config.model,
      policy: config.provider,
      sleep: o.sleep ?? realSleep,
      signal,
      // As recorded, so a resumed or replayed run passes through what its first pass did.
      ...(o.started.model.protocols ? { passThrough: o.started.model.protocols } : {}),
    };
    const suite = o.suite;
    // A retried job's attempt in the pass running it (absent = its first).
    const attempts = new Map<string, number>();
    const jobs: JobRunner = o.remote
      ? { kind: 'remote', remote: o.remote }
      : {
          kind: 'local',
          jobKind: suite.jobKind,
          window: o.window ?? config.concurrency,
          inputOf: (job) => ({
            job,
            journal: jobJournal(journal, job.jobId, attempts.get(job.jobId)),
            provider: { ...provider, seed: job.seed },
            hooks: suite.hooks(job),
            limits: config.worker,
            gateway: gateway.get,
          }),
        };
    // A new run records its agents' files by hash (resume refuses a changed one); a recorded run has them.
    const started = o.journal ? o.started : await withAgentProvenance(o.started, config);
    const breaker = o.breaker ? { breaker: o.breaker } : {};
    const runPass: RunPass = (pass) =>
      toPromise(createActor(runMachine, { input: { runScope: journal.scope(undefined), jobs, signal, ...breaker, ...pass } }).start());
    return await runRetries(await runPass({ started }), o.retries ?? [], started, attempts, runPass);
  } finally {
    await gateway.close();
    await server?.close();
  }
}

/**
 * The plan with its agents' files recorded by hash (AgentCommandError when one cannot run here):
 * the CLI calls it before it writes anything, so a mistyped agent is refused up front.
 */
export async function withAgentProvenance(started: DataOf<'RunStarted'>, config: PreparedSuite['config']): Promise<DataOf<'RunStarted'>> {
  if (started.provenance[AGENTS_KEY] !== undefined) return started;
  const agents = await agentProvenance(config);
  return agents ? { ...started, provenance: { ...started.provenance, [AGENTS_KEY]: agents } } : started;
}
