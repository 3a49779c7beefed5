import type { FaultKind, ScriptedStats } from './types.js';

const empty = (): ScriptedStats => ({
  requests: 0,
  completed: 0,
  byStatus: {},
  faults: {},
  byRequestHash: {},
  completedByRequestHash: {},
  completedByCallKey: {},
  requestsByCallKey: {},
  usageOmitted: 0,
  requestsByPath: {},
  bodiesByPath: {},
});

const CHAT_PATH = '/v1/chat/completions';

const bump = <K extends string>(map: Partial<Record<K, number>>, key: K) => {
  map[key] = (map[key] ?? 0) + 1;
};

/** The counters behind `stats()` and GET /_scripted/stats. */
export class StatsRecorder {
  private s = empty();

  /** A chat completion request arrived (valid or not), named by its X-Evalog-Call header if any. */
  request(callKey: string | null = null): void {
    this.s.requests += 1;
    bump(this.s.requestsByPath, CHAT_PATH);
    if (callKey !== null) bump(this.s.requestsByCallKey, callKey);
  }

  /** A request arrived at another protocol's route (not counted in `requests`, which are chat's). */
  protocolRequest(path: string, callKey: string | null): void {
    bump(this.s.requestsByPath, path);
    if (callKey !== null) bump(this.s.requestsByCallKey, callKey);
  }

  /** The body (its bytes' sha256) of a request at another protocol's route. */
  protocolBody(path: string, sha256: string): void {
    this.s.bodiesByPath[path] ??= {};
    bump(this.s.bodiesByPath[path], sha256);
  }

  /** A valid request with this hash arrived; returns how many times it was seen before. */
  received(hash: string): number {
    const before = this.s.byRequestHash[hash] ?? 0;
    this.s.byRequestHash[hash] = before + 1;
    return before;
  }

  /** A response status was sent to a chat completion request (or a 404). */
  status(code: number): void {
    bump(this.s.byStatus, String(code));
  }

  /** A fault rule fired. */
  fault(kind: FaultKind): void {
    bump(this.s.faults, kind);
  }

  /** A usable completion was fully written. */
  completed(hash: string, usageOmitted: boolean, callKey: string | null = null): void {
    this.s.completed += 1;
    bump(this.s.completedByRequestHash, hash);
    if (callKey !== null) bump(this.s.completedByCallKey, callKey);
    if (usageOmitted) this.s.usageOmitted += 1;
  }

  /** A deep copy, so callers cannot change the counters. */
  snapshot(): ScriptedStats {
    return structuredClone(this.s);
  }

  reset(): void {
    this.s = empty();
  }
}
