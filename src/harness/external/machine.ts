import { assign, fromPromise, setup } from 'xstate';
import type { PlannedJob, StoredEvent } from '../../events/index.js';
import type { JobOutput } from '../kernel/env.js';
import { graderMachine } from '../grader/machine.js';
import { decideJob, recordJob, type JobCommand, type RecordJobInput } from '../kernel/job-lifecycle.js';
import { JobShapeError, type JobInput, type JobJournal, type ProviderPort } from '../kernel/ports.js';
import { rethrow } from '../kernel/shared.js';
import type { ExternalAgentHooks, GradeHook } from '../suite/define.js';
import type { GradeInput, WorkerLimits } from '../suite/types.js';
import { runExternalAgent, type AgentRunInput, type AgentRunOutput } from './effects.js';
import { agentLimitsOf, failsJob } from './logic.js';
import { settingsWithLimits } from './session.js';
import type { AgentGateway, AgentLimits } from '../kernel/agent-gateway.js';

export interface Ctx {
  job: PlannedJob;
  journal: JobJournal;
  provider: ProviderPort;
  external: ExternalAgentHooks;
  grade: GradeHook;
  limits: AgentLimits;
  gateway: () => Promise<AgentGateway>;
  agent: AgentRunOutput | null;
  /** JobStarted as recorded: the agent's part folds it (a session's deadline starts there). */
  started: StoredEvent[];
  command: JobCommand | null;
}

/** An external agent's job was started without a gateway to serve it: a wiring error in the harness. */
export class NoGatewayError extends Error {
  override name = 'NoGatewayError';
  constructor() {
    super('an external-agent job needs an agent gateway, and none was given');
  }
}

const recordInput = (c: Ctx): RecordJobInput => ({ journal: c.journal, signal: c.provider.signal, cmd: c.command! });

/**
 * An external-agent job: start, the agent's process (its model calls and tool calls recorded as it
 * makes them), the grader on what it left, the end. An agent that exits non-zero or is killed by a
 * signal it was not sent fails the job (`agent_failed`); every other ending is graded.
 */
export const externalJobMachine = setup({
  types: {} as { input: JobInput; context: Ctx; output: JobOutput },
  actors: {
    agent: fromPromise<AgentRunOutput, AgentRunInput>(({ input }) => runExternalAgent(input)),
    grader: graderMachine,
    start: fromPromise<StoredEvent[], { job: PlannedJob; journal: JobJournal }>(({ input }) => start(input)),
    record: fromPromise<void, RecordJobInput>(({ input }) => recordJob(input)),
  },
}).createMachine({
  id: 'external-job',
  context: ({ input }) => {
    const h = input.hooks;
    if (h.shape !== 'external') throw new JobShapeError('external', h.shape);
    if (!input.gateway) throw new NoGatewayError();
    const { job, journal } = input;
    const { provider, external, limits } = agentJobSetting(input.provider, h.external, input.limits);
    return { job, journal, provider, external, grade: h.grade, limits, gateway: input.gateway, agent: null, started: [], command: null };
  },
  initial: 'starting',
  states: {
    starting: {
      invoke: {
        src: 'start',
        input: ({ context: c }) => ({ job: c.job, journal: c.journal }),
        onDone: { target: 'agent', actions: assign({ started: ({ event }) => event.output }) },
        onError: 'crashed',
      },
    },
    agent: {
      invoke: {
        src: 'agent',
        input: ({ context: c }) => ({
          job: c.job,
          journal: c.journal,
          provider: c.provider,
          hooks: c.external,
          limits: c.limits,
          gateway: c.gateway,
          started: c.started,
        }),
        onDone: [
          {
            guard: ({ event }) => failsJob(event.output.reason),
            target: 'ending',
            actions: assign({
              agent: ({ event }) => event.output,
              command: ({ event }) => ({ type: 'Fail' as const, reason: 'agent_failed' as const, message: failureMessage(event.output) }),
            }),
          },
          { target: 'grading', actions: assign({ agent: ({ event }) => event.output }) },
        ],
        onError: 'crashed',
      },
    },
    grading: {
      invoke: {
        src: 'grader',
        input: ({ context: c }) => ({
          journal: c.journal,
          provider: c.provider,
          grade: c.grade,
          work: gradeInput(c.agent!),
        }),
        onDone: { target: 'ending', actions: assign({ command: ({ event }) => ({ type: 'Succeed' as const, passed: event.output.passed }) }) },
        onError: 'crashed',
      },
    },
    ending: {
      invoke: { src: 'record', input: ({ context }) => recordInput(context), onDone: 'done', onError: 'crashed' },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => ({ jobId: context.job.jobId, status: context.command?.type === 'Succeed' ? 'succeeded' : 'failed' }),
});

/**
 * What the job runs with: a single-call arm's or a session cell's own model; for a session, the
 * cell's sampling (its queries'), timeouts and retries, and its budgets as the agent's limits
 * (the agent's own config wins), applied to the session's settings too so queries obey them.
 */
export function agentJobSetting(base: ProviderPort, external: ExternalAgentHooks, worker: WorkerLimits) {
  const provider = external.model === undefined ? base : { ...base, model: external.model };
  const s = external.session;
  if (!s) return { provider, external, limits: agentLimitsOf(external.spec.limits, worker) };
  const limits = agentLimitsOf(external.spec.limits, { timeLimitMs: s.settings.budget.deadlineMs, modelCalls: s.settings.budget.modelCalls });
  const session = { ...s, settings: settingsWithLimits(s.settings, limits) };
  return { provider: { ...provider, sampling: s.settings.sampling, policy: s.settings.provider }, external: { ...external, session }, limits };
}

/** What the grader sees of the agent's work: its artifacts and answer, its workspace's changes, and a session's final environment. */
function gradeInput(out: AgentRunOutput): GradeInput {
  const work: GradeInput = { final: out.state.artifact, first: out.state.firstArtifact, answer: out.answer };
  if (out.workspace !== undefined) work.workspace = out.workspace;
  return out.environment === undefined ? work : { ...work, environment: out.environment };
}

// JobStarted is folded by the agent's part, as the session worker folds it: it starts the deadline.
async function start(input: { job: PlannedJob; journal: JobJournal }): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (const d of decideJob({ type: 'Start', job: input.job })) out.push(await input.journal.scope.emit(`job/${input.job.jobId}`, d));
  return out;
}

function failureMessage(out: AgentRunOutput): string {
  return out.signal !== null ? `the agent was killed by ${out.signal}` : `the agent exited with code ${out.code}`;
}
