import type { StoredEvent } from 'evalog';
import type { Scenario } from './scenarios.js';

/** A location an agent cites. */
export interface Citation {
  source: string;
  line: number;
}

/**
 * The fixture environment of one job: its state (sources, records, migrations, submission) and
 * its access log (reads, complete query replies, side effects), as a pure fold of the job's events.
 */
export interface CeEnvironment {
  sources: Record<string, { revision: number; lines: string[] }>;
  records: Record<string, string>;
  migrations: string[];
  /** Side effects in the order they happened (the submission included). */
  effects: { effect: string; callId: string }[];
  reads: { source: string; revision: number; from: number; to: number }[];
  /** Sources a query read whole and answered completely (not failed, not cut). */
  queried: { source: string; revision: number }[];
  /** Side effects recorded when the last context switch or restart happened; null before any. */
  resetAt: number | null;
  staleMisuses: { effect: string; reason: string }[];
  submission: { answer: string; evidence: Citation[] } | null;
}

/** Lines a read returns at most. */
export const PAGE_LINES = 40;

/** The fixture as the job starts on it. */
export function initialEnvironment(s: Scenario): CeEnvironment {
  const sources = Object.fromEntries(Object.entries(s.sources).map(([id, lines]) => [id, { revision: 1, lines }]));
  return { sources, records: { ...s.records }, migrations: [], effects: [], reads: [], queried: [], resetAt: null, staleMisuses: [], submission: null };
}

/** The 1-based line range a read returns, or why it returns none. Shared by the tool and the fold. */
export function readRange(args: { from?: unknown; to?: unknown }, length: number): { from: number; to: number } | string {
  const from = args.from === undefined ? 1 : Number(args.from);
  if (!Number.isInteger(from) || from < 1 || from > length) return `from must be a line within 1..${length}`;
  const wanted = args.to === undefined ? from + PAGE_LINES - 1 : Number(args.to);
  if (!Number.isInteger(wanted) || wanted < from) return 'to must be a line at or after from';
  return { from, to: Math.min(wanted, length, from + PAGE_LINES - 1) };
}

/** Parses JSON tool arguments into an object, null when they are not one. */
export function argsOf(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw === '' ? '{}' : raw);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Folds one job event into the environment; events it does not concern leave it as it is. */
export function evolveEnvironment(env: CeEnvironment, e: StoredEvent): CeEnvironment {
  switch (e.type) {
    case 'ToolCalled':
      return e.data.isError ? env : observed(env, e.data.name, argsOf(e.data.arguments) ?? {}, e.data.result);
    case 'EnvironmentChanged':
      return applied(env, e.data);
    case 'FaultInjected': {
      const m = e.data.mutation;
      if (m) return { ...env, sources: { ...env.sources, [m.source]: { revision: m.revision, lines: m.lines } } };
      if (e.data.kind === 'context_switch' || e.data.kind === 'worker_restart') return { ...env, resetAt: env.effects.length };
      return env;
    }
    default:
      return env;
  }
}

// What the agent saw: a read (at the revision the source had then) or the complete query replies.
function observed(env: CeEnvironment, tool: string, args: Record<string, unknown>, result: string): CeEnvironment {
  if (tool === 'read_source') {
    const src = env.sources[String(args.source)];
    const range = src ? readRange(args, src.lines.length) : 'no source';
    return typeof range === 'string' ? env : { ...env, reads: [...env.reads, { source: String(args.source), revision: src!.revision, ...range }] };
  }
  if (tool === 'query') {
    const asked = Array.isArray(args.queries) ? (args.queries as { source?: unknown }[]) : [];
    const replies = (argsOf(result)?.results ?? []) as { query?: number; status?: string }[];
    const complete = replies.filter((r) => r.status === 'ok').map((r) => String(asked[r.query ?? -1]?.source));
    return { ...env, queried: [...env.queried, ...complete.filter((s) => env.sources[s]).map((s) => ({ source: s, revision: env.sources[s]!.revision }))] };
  }
  return env;
}

function applied(env: CeEnvironment, d: { callId: string; effect: string; target: string; value: string }): CeEnvironment {
  const misuse = staleReason(env, d.effect);
  const next: CeEnvironment = {
    ...env,
    effects: [...env.effects, { effect: d.effect, callId: d.callId }],
    staleMisuses: misuse ? [...env.staleMisuses, { effect: d.effect, reason: misuse }] : env.staleMisuses,
  };
  if (d.target.startsWith('records/')) return { ...next, records: { ...next.records, [d.target.slice('records/'.length)]: d.value } };
  if (d.target === 'migrations') return { ...next, migrations: [...next.migrations, d.value] };
  if (d.target === 'submission') return { ...next, submission: JSON.parse(d.value) as CeEnvironment['submission'] };
  return next;
}

/**
 * Why an effect acts on outdated state, or null: a source the agent read changed after its last
 * read of it, or the effect repeats one done before the last context switch or restart.
 */
function staleReason(env: CeEnvironment, effect: string): string | null {
  const last = new Map<string, number>();
  for (const r of env.reads) last.set(r.source, Math.max(last.get(r.source) ?? 0, r.revision));
  for (const [source, revision] of [...last].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const now = env.sources[source]?.revision ?? revision;
    if (now > revision) return `acted on ${source} revision ${revision}, but it is at revision ${now}`;
  }
  if (env.resetAt !== null && env.effects.slice(0, env.resetAt).some((x) => x.effect === effect))
    return `repeated ${effect}, done before the context switch or restart`;
  return null;
}
