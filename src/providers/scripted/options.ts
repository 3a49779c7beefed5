import { ScriptedConfigError } from './errors.js';
import { unitDraw } from './hash.js';
import type { LatencyOption, OmitUsageOption, Player, ScriptedModelOptions } from './types.js';

/** Options with defaults filled in and checked. */
export interface ResolvedOptions {
  port: number;
  seed: number;
  players: readonly Player[];
  models: readonly string[];
  latencyMs: LatencyOption;
  omitUsage: OmitUsageOption;
  maxTokensTruncation: boolean;
  timeoutCapMs: number;
}

const nonNegInt = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0;

/** Fills defaults and throws `ScriptedConfigError` naming the first bad option. */
export function resolveOptions(options: ScriptedModelOptions): ResolvedOptions {
  const r: ResolvedOptions = {
    port: options.port ?? 0,
    seed: options.seed ?? 0,
    players: [...(options.players ?? [])],
    models: [...(options.models ?? ['scripted'])],
    latencyMs: options.latencyMs ?? 0,
    omitUsage: options.omitUsage ?? 'never',
    maxTokensTruncation: options.maxTokensTruncation ?? true,
    timeoutCapMs: options.timeoutCapMs ?? 30_000,
  };
  const bad = (field: string, value: unknown, want: string) =>
    new ScriptedConfigError(`scripted model option ${field} must be ${want}, got ${JSON.stringify(value)}`);
  if (!nonNegInt(r.port) || r.port > 65535) throw bad('port', r.port, 'an integer within 0..65535');
  if (!Number.isSafeInteger(r.seed)) throw bad('seed', r.seed, 'a safe integer');
  if (r.models.length === 0 || r.models.some((m) => typeof m !== 'string' || m === '')) throw bad('models', r.models, 'non-empty model ids');
  if (r.players.some((p) => typeof p !== 'function')) throw bad('players', typeof r.players.find((p) => typeof p !== 'function'), 'functions');
  const lat = r.latencyMs;
  if (typeof lat === 'number' ? !nonNegInt(lat) : !(nonNegInt(lat.minMs) && nonNegInt(lat.maxMs) && lat.minMs <= lat.maxMs)) {
    throw bad('latencyMs', lat, 'an integer >= 0 or { minMs, maxMs } with 0 <= minMs <= maxMs');
  }
  const omit = r.omitUsage;
  if (typeof omit === 'number' ? !(omit >= 0 && omit <= 1) : omit !== 'never' && omit !== 'always') {
    throw bad('omitUsage', omit, "'never', 'always' or a rate within 0..1");
  }
  if (!nonNegInt(r.timeoutCapMs)) throw bad('timeoutCapMs', r.timeoutCapMs, 'an integer >= 0');
  return r;
}

/** The delay for one request: fixed, or drawn from the range by (seed, request hash). */
export function latencyFor(latency: LatencyOption, seed: number, hash: string): number {
  if (typeof latency === 'number') return latency;
  const span = latency.maxMs - latency.minMs + 1;
  return latency.minMs + Math.floor(unitDraw(`${seed}:${hash}`, 'latency') * span);
}

/** Whether the `omitUsage` option leaves usage out of this request's response. */
export function omitUsageFor(omit: OmitUsageOption, seed: number, hash: string): boolean {
  if (omit === 'never') return false;
  if (omit === 'always') return true;
  return unitDraw(`${seed}:${hash}`, 'omit-usage') < omit;
}
