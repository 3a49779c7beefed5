import { ScriptedConfigError } from './errors.js';
import { unitDraw } from './hash.js';
import { FAULT_KINDS, type FaultRule } from './types.js';

/** What a fault rule is tested against, for one request. */
export interface FaultProbe {
  lastMessageText: string;
  canonicalBody: string;
  /** `requestHash` of the body. */
  hash: string;
  seed: number;
  /** How many times this same body was received before this request (0 for the first). */
  occurrence: number;
}

interface CompiledRule {
  rule: FaultRule;
  test: ((probe: FaultProbe) => boolean) | null;
  eligible: number;
  injected: number;
}

/** Checks a rule and throws `ScriptedConfigError` naming the bad field. */
export function validateFaultRule(rule: FaultRule, index = 0): void {
  const bad = (msg: string) => new ScriptedConfigError(`faults[${index}] (${String(rule.kind)}): ${msg}`);
  if (!(FAULT_KINDS as readonly string[]).includes(rule.kind)) throw bad(`kind must be one of ${FAULT_KINDS.join(', ')}`);
  if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1)) throw bad(`rate must be within 0..1, got ${rule.rate}`);
  if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0)) throw bad(`times must be an integer >= 0, got ${rule.times}`);
  if (rule.everyNth !== undefined && !(Number.isInteger(rule.everyNth) && rule.everyNth >= 1))
    throw bad(`everyNth must be an integer >= 1, got ${rule.everyNth}`);
  if (rule.retryAfterSeconds !== undefined && !(rule.retryAfterSeconds >= 0)) throw bad(`retryAfterSeconds must be >= 0, got ${rule.retryAfterSeconds}`);
  if (rule.status !== undefined && !(rule.kind === 'server_error' && Number.isInteger(rule.status) && rule.status >= 500 && rule.status <= 599)) {
    throw bad(`status is only for server_error and must be a 5xx, got ${rule.status}`);
  }
  if (typeof rule.match === 'string') compilePattern(rule.match, bad);
}

// `/source/flags` is a pattern (so JSON configs and the CLI can write one); anything else is a substring.
function compilePattern(match: string, bad: (msg: string) => Error): RegExp | null {
  const m = /^\/(.*)\/([a-z]*)$/s.exec(match);
  if (!m) return null;
  try {
    return new RegExp(m[1] ?? '', (m[2] ?? '').replace(/[gy]/g, ''));
  } catch (err) {
    throw bad(`match ${match} is not a valid pattern: ${(err as Error).message}`);
  }
}

function compileMatch(rule: FaultRule, index: number): CompiledRule['test'] {
  const { match } = rule;
  if (match === undefined) return null;
  // A global or sticky RegExp keeps state between test() calls; strip those flags.
  const pattern =
    match instanceof RegExp
      ? new RegExp(match.source, match.flags.replace(/[gy]/g, ''))
      : compilePattern(match, (msg) => new ScriptedConfigError(`faults[${index}]: ${msg}`));
  if (pattern) return (p) => pattern.test(p.lastMessageText) || pattern.test(p.canonicalBody);
  const needle = match as string;
  return (p) => p.lastMessageText.includes(needle) || p.canonicalBody.includes(needle);
}

/**
 * The active fault rules with their counters. Rules are tried in order; a rule counts the
 * requests that reach it and match (for `everyNth`) and its injections (for `times`); the first
 * rule whose conditions all hold fires. Counters depend on arrival order, so with concurrent
 * requests `times`/`everyNth` pick whichever arrives first; `rate` alone does not.
 */
export class FaultPlan {
  private readonly rules: CompiledRule[];

  constructor(rules: readonly FaultRule[]) {
    rules.forEach(validateFaultRule);
    this.rules = rules.map((rule, i) => ({ rule: { ...rule }, test: compileMatch(rule, i), eligible: 0, injected: 0 }));
  }

  /** The rule that faults this request, or null; advances the counters. */
  pick(probe: FaultProbe): FaultRule | null {
    for (const [i, r] of this.rules.entries()) {
      if (r.test && !r.test(probe)) continue;
      r.eligible += 1;
      const { times, everyNth, rate } = r.rule;
      if (times !== undefined && r.injected >= times) continue;
      if (everyNth !== undefined && r.eligible % everyNth !== 0) continue;
      if (rate !== undefined && unitDraw(`${probe.seed}:${probe.hash}:${probe.occurrence}`, `fault:${i}`) >= rate) continue;
      r.injected += 1;
      return r.rule;
    }
    return null;
  }
}
