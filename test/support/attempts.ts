// usage.json checked against what a scripted-model server process received: the test of "every
// attempt that may have reached a provider is in usage.json, and none was sent twice", shared by
// the crash-resume tests of built-in and external agents.
import { expect } from 'chai';
import { join } from 'node:path';
import type { MockServerProcess } from './mock-server.js';
import { readJson } from './outputs.js';

/** One attempt as usage.json lists it. */
export interface UsageCall {
  job_id: string;
  call_id: string;
  outcome: string;
}

/**
 * Every request the endpoint received is one attempt in usage.json, none came twice, no completed
 * call was sent twice, and the only attempts it never got are cut-off ones: `unknown` (recorded as
 * requested just before a kill, never sent) or `aborted` (a Ctrl-C landed between the request
 * being recorded and its bytes reaching the endpoint; a CI run on Node 24 saw one 11 ms in). Both
 * may have reached a provider, so both stay in usage.json. Returns the attempts cut off by a kill.
 */
export async function checkAttemptsAccounted(server: MockServerProcess, dir: string, runId: string): Promise<UsageCall[]> {
  const usage = await readJson<{ calls: UsageCall[]; report: { calls: number } }>(join(dir, 'usage.json'));
  const stats = await server.stats();
  const mine = (o: Record<string, number>) => Object.entries(o).filter(([k]) => k.startsWith(`${runId}/`));
  const received = mine(stats.requestsByCallKey);
  expect(received.length, 'the endpoint received requests of this run').to.be.greaterThan(0);
  expect(
    received.filter(([, n]) => n !== 1),
    'attempts the endpoint received more than once',
  ).to.deep.equal([]);
  expect(
    mine(stats.completedByCallKey).filter(([, n]) => n !== 1),
    'calls completed more than once',
  ).to.deep.equal([]);
  const attempts = new Map(usage.calls.map((c) => [`${runId}/${c.job_id}/${c.call_id}`, c]));
  expect(
    received.map(([k]) => k).filter((k) => !attempts.has(k)),
    'requests missing from usage.json',
  ).to.deep.equal([]);
  const keys = new Set(received.map(([k]) => k));
  const unseen = [...attempts].filter(([k]) => !keys.has(k)).map(([, c]) => c);
  expect(
    unseen.filter((c) => c.outcome !== 'unknown' && c.outcome !== 'aborted'),
    'recorded attempts the endpoint never saw',
  ).to.deep.equal([]);
  expect(received.length).to.equal(usage.report.calls - unseen.length);
  return usage.calls.filter((c) => c.outcome === 'unknown');
}
