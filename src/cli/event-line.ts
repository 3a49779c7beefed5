import type { StoredEvent } from '../events/index.js';
import { assertNever } from '../core/never.js';

/** One human-readable line per event: seq, time, actor, type, and the fields that matter for it. */
export function eventLine(e: StoredEvent): string {
  return `${String(e.seq).padStart(7)}  ${e.at}  ${e.actor.padEnd(40)}  ${e.type.padEnd(22)}  ${keyFields(e)}`;
}

function keyFields(e: StoredEvent): string {
  switch (e.type) {
    case 'RunStarted':
      return `suite=${e.data.suite} jobs=${e.data.jobs.length} model=${e.data.model.name}${e.data.model.scripted ? ' (scripted)' : ''} concurrency=${e.data.concurrency}`;
    case 'RunCompleted':
      return `succeeded=${e.data.jobsSucceeded} failed=${e.data.jobsFailed}`;
    case 'RunReopened':
      return `retry=${e.data.retry} reason=${e.data.reason} jobs=${e.data.jobIds.length}`;
    case 'JobStarted':
      return `case=${e.data.caseId} arm=${e.data.arm} rep=${e.data.repetition}${e.data.attempt === undefined ? '' : ` attempt=${e.data.attempt}`}`;
    case 'TaskDelegated':
      return `mode=${e.data.mode} words=${e.data.words}`;
    case 'WorkerStopped':
      return `reason=${e.data.reason} turns=${e.data.turns}`;
    case 'JobClaimed':
      return `worker=${e.data.worker} delivery=${e.data.delivery}${e.data.resumedAfter > 0 ? ` resumed after ${e.data.resumedAfter} events` : ''}`;
    case 'JobSucceeded':
      return `passed=${e.data.passed}`;
    case 'JobComputed':
      return `output=${clip(JSON.stringify(e.data.output))}`;
    case 'JobFailed':
      return `reason=${e.data.reason} ${clip(e.data.message)}`;
    case 'ProviderCallRequested':
      return `${e.data.callId} ${e.data.attribution} messages=${e.data.messages.length}`;
    case 'ProviderCallSucceeded': {
      const u = e.data.usage;
      const tools = e.data.toolCalls.map((t) => t.name).join(',');
      return `${e.data.callId} finish=${e.data.finishReason} tokens=${u?.total ?? 'unknown'} ${Math.round(e.data.latencyMs)}ms${tools ? ` tools=${tools}` : ''}`;
    }
    case 'ProviderCallFailed':
      return `${e.data.callId} ${e.data.kind}${e.data.status ? ` ${e.data.status}` : ''} retryable=${e.data.retryable}`;
    case 'ToolCalled':
      return `${e.data.name}(${clip(e.data.arguments)}) -> ${e.data.isError ? 'error ' : ''}${clip(e.data.result)}`;
    case 'ArtifactRevised':
      return `revision=${e.data.revision} sha256=${e.data.sha256.slice(0, 12)}`;
    case 'CheckEvaluated':
      return `${e.data.checkId} ${e.data.passed ? 'passed' : 'FAILED'}`;
    case 'JobGraded':
      return `passed=${e.data.passed} ${e.data.checksPassed}/${e.data.checksTotal}`;
    case 'ScenarioScored':
      return `success=${e.data.success} evidence=${e.data.evidence.filter((x) => x.fetched && x.cited).length}/${e.data.evidence.length} stale=${e.data.staleMisuses.length} duplicates=${e.data.duplicateEffects.length}`;
    case 'EnvironmentChanged':
      return `${e.data.effect}${e.data.terminal ? ' (final)' : ''} -> ${e.data.target}=${clip(e.data.value)}`;
    case 'BudgetExhausted':
      return `budget=${e.data.budget} used=${e.data.used}/${e.data.limit}`;
    case 'FaultInjected':
      return `injected ${e.data.kind} ${e.data.injectionId} -> ${e.data.target}`;
    case 'AgentLaunched':
      return `agent=${e.data.agent} ${clip(e.data.command[0]!)}`;
    case 'AgentExited': {
      const how = e.data.signal !== null ? `signal=${e.data.signal}` : `code=${e.data.code}`;
      return `reason=${e.data.reason} ${how} calls=${e.data.modelCalls} tools=${e.data.toolCalls}`;
    }
    case 'AgentDiverged':
      return `index=${e.data.index} ${e.data.kind} field=${clip(e.data.field)}`;
    case 'AgentRequestReceived':
      return `${e.data.call} protocol=${e.data.protocol} body=${e.data.body.slice(0, 12)}`;
    case 'WorkspaceCaptured':
      return `files=${e.data.summary.files} +${e.data.summary.added} -${e.data.summary.removed}${e.data.skipped.length > 0 ? ` skipped=${e.data.skipped.length}` : ''}`;
    default:
      return assertNever(e);
  }
}

function clip(s: string, n = 60): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? `${one.slice(0, n)}…` : one;
}
