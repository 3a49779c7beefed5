import type { Injection, InjectionPoint } from 'evalog';
import type { CeEnvironment } from './environment.js';
import type { PlannedInjection, Scenario } from './scenarios.js';

/** Side effects so far, the final submission left out (after it the task is over anyway). */
const sideEffects = (env: CeEnvironment) => env.effects.filter((e) => e.effect !== 'submit').length;

/**
 * Whether a planned injection fires at this point: a mutation once the source was read `count`
 * times, a restart mid-batch and a context switch between batches once `effects` side effects are
 * recorded, a query fault at its batch and index.
 */
function fires(p: PlannedInjection, env: CeEnvironment, at: InjectionPoint): boolean {
  const a = p.after;
  if ('reads' in a) return at.type === 'tool' && env.reads.filter((r) => r.source === a.reads).length >= a.count;
  if ('effects' in a) return at.type === (p.kind === 'context_switch' ? 'turn' : 'tool') && sideEffects(env) >= a.effects;
  return at.type === 'query' && at.batch === a.queryBatch && at.index === a.query;
}

/** What the harness does for a planned injection, given the environment now. */
function toInjection(p: PlannedInjection, env: CeEnvironment): Injection {
  const base = { id: p.id, kind: p.kind, notice: p.notice, mutation: null, keepChars: null };
  switch (p.kind) {
    case 'source_mutation': {
      const revision = (env.sources[p.source!]?.revision ?? 0) + 1;
      return {
        ...base,
        target: p.source!,
        detail: `harness wrote revision ${revision} of ${p.source}`,
        mutation: { source: p.source!, revision, lines: p.lines! },
      };
    }
    case 'query_failure':
      return { ...base, target: 'query', detail: "the query's reply was discarded: the agent got a failed query" };
    case 'query_truncation':
      return { ...base, target: 'query', detail: `the query's reply was cut to ${p.keepChars} characters (finish_reason length)`, keepChars: p.keepChars! };
    case 'context_switch':
      return { ...base, target: 'worker', detail: "the conversation was replaced by the start messages and the host's notes" };
    case 'worker_restart':
      return { ...base, target: 'worker', detail: `the worker actor was stopped after side effect ${sideEffects(env)} and rebuilt from its events` };
  }
}

/** The scenario's injections due at this point that have not fired yet, in plan order. */
export function injectionsDue(s: Scenario, env: CeEnvironment, fired: readonly string[], at: InjectionPoint): Injection[] {
  return s.injections.filter((p) => !fired.includes(p.id) && fires(p, env, at)).map((p) => toInjection(p, env));
}
