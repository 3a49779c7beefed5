import { assign, fromPromise, setup } from 'xstate';
import type { PlannedJob } from '../../events/index.js';
import type { JobOutput } from '../env.js';
import { graderMachine } from '../grader/machine.js';
import { recordJob, type JobCommand, type RecordJobInput } from '../job-lifecycle.js';
import { JobShapeError, type JobInput, type JobJournal, type ProviderPort } from '../ports.js';
import { rethrow } from '../shared.js';
import type { ExternalAgentHooks, GradeHook } from '../suite/define.js';
import { runExternalAgent, type AgentRunInput, type AgentRunOutput } from './effects.js';
import { agentLimitsOf, failsJob } from './logic.js';
import type { AgentGateway, AgentLimits } from './types.js';

export interface Ctx {
  job: PlannedJob;
  journal: JobJournal;
  provider: ProviderPort;
  external: ExternalAgentHooks;
  grade: GradeHook;
  limits: AgentLimits;
  gateway: () => Promise<AgentGateway>;
  agent: AgentRunOutput | null;
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
    record: fromPromise<void, RecordJobInput>(({ input }) => recordJob(input)),
  },
}).createMachine({
  id: 'external-job',
  context: ({ input }) => {
    const h = input.hooks;
    if (h.shape !== 'external') throw new JobShapeError('external', h.shape);
    if (!input.gateway) throw new NoGatewayError();
    const { job, journal } = input;
    // A single-call suite's arm may name its own model: the proxy sends that one.
    const provider = h.external.model === undefined ? input.provider : { ...input.provider, model: h.external.model };
    const limits = agentLimitsOf(h.external.spec.limits, input.limits);
    return { job, journal, provider, external: h.external, grade: h.grade, limits, gateway: input.gateway, agent: null, command: { type: 'Start', job } };
  },
  initial: 'starting',
  states: {
    starting: {
      invoke: { src: 'record', input: ({ context }) => recordInput(context), onDone: 'agent', onError: 'crashed' },
    },
    agent: {
      invoke: {
        src: 'agent',
        input: ({ context: c }) => ({ job: c.job, journal: c.journal, provider: c.provider, hooks: c.external, limits: c.limits, gateway: c.gateway }),
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
          work: { final: c.agent!.state.artifact, first: c.agent!.state.firstArtifact, answer: c.agent!.answer },
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

function failureMessage(out: AgentRunOutput): string {
  return out.signal !== null ? `the agent was killed by ${out.signal}` : `the agent exited with code ${out.code}`;
}
