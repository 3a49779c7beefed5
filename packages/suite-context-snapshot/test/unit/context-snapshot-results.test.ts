// Context-snapshot summaries checked against figures computed apart from `summarizeRows`: the
// published figures as their README states them, plain sums over the committed reference rows,
// hand-made rows with missing usage, and the golden run with one response's usage taken out.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FileEventLog, type StoredEvent } from 'evalog';
// TODO(api): an engine internal with no public export: the pure fold of a run's events into its outputs.
import { deriveOutputs } from '../../../../src/projections/outputs.js';
import { CONTEXT_SNAPSHOT_2026_09_12, publishedFolder } from '../../../../test/support/published.js';
import { contextSnapshotSuite, type SummarizableRow, summarizeRows } from '../../src/index.js';

const DIR = new URL('../../../../results/context-snapshot/', import.meta.url);
const published = publishedFolder(CONTEXT_SNAPSHOT_2026_09_12);
const GOLDEN = fileURLToPath(new URL('../../../../test/replay/golden/', import.meta.url));
// The suite's own outputs (rows, summary): the package's suite, not the CLI registry's lookup.
const hooksOf = (name: string) => (name === contextSnapshotSuite.name ? contextSnapshotSuite : undefined);

const readRows = async (url: URL) =>
  (await readFile(url, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as SummarizableRow);

describe('context-snapshot summaries against independently computed figures', () => {
  published.it('the published rows give the figures the fixture README states (typed in, not recomputed)', async () => {
    const s = summarizeRows(await readRows(pathToFileURL(published.path('rows.jsonl'))));
    expect(s.isolated_handoff).to.deep.equal({
      n: 8,
      artifact_correct: 8,
      clean_success: 7,
      observed_total_tokens: 105569,
      usage_complete: true,
      mean_total_tokens: 13196.125,
      mean_seconds: 33.73334966699986,
      median_seconds: 25.309243562995107,
      requests: 48,
    });
    expect(s.snapshot).to.deep.equal({
      n: 8,
      artifact_correct: 8,
      clean_success: 7,
      observed_total_tokens: 89214,
      usage_complete: true,
      mean_total_tokens: 11151.75,
      mean_seconds: 20.140418104128912,
      median_seconds: 13.929723041510442,
      requests: 42,
    });
  });

  it('hand-made rows with a call of unknown usage: tokens observed are the known sum, the mean is null for that arm only', () => {
    const row = (arm: string, total: number, complete: boolean, requests: number, seconds: number | null, correct = true, clean = true): SummarizableRow => ({
      arm,
      artifact_correct: correct,
      clean_success: clean,
      seconds,
      usage: { total_tokens: total, requests, complete },
    });
    const s = summarizeRows([
      row('partial', 100, true, 2, 1),
      row('partial', 250, false, 3, 4, true, false),
      row('whole', 300, true, 1, 3, false, false),
      row('partial', 40, true, 1, 2, false, false),
      row('whole', 500, true, 2, null),
    ]);
    // By hand: partial = 100 + 250 + 40 tokens over 2 + 3 + 1 requests, seconds 1, 4, 2 (mean 7/3, median 2);
    // whole = (300 + 500) / 2 = 400 tokens a job, seconds 3 only (a job without seconds is left out).
    expect(s).to.deep.equal({
      partial: {
        n: 3,
        artifact_correct: 2,
        clean_success: 1,
        observed_total_tokens: 390,
        usage_complete: false,
        mean_total_tokens: null,
        mean_seconds: 7 / 3,
        median_seconds: 2,
        requests: 6,
      },
      whole: {
        n: 2,
        artifact_correct: 1,
        clean_success: 1,
        observed_total_tokens: 800,
        usage_complete: true,
        mean_total_tokens: 400,
        mean_seconds: 3,
        median_seconds: 3,
        requests: 3,
      },
    });
  });

  it('the golden run with one response missing its usage: that arm is incomplete, its mean null, its tokens the known sum', async () => {
    const log = await FileEventLog.open({ root: GOLDEN });
    const events: StoredEvent[] = [];
    try {
      for await (const e of log.read('context-snapshot')) events.push(e);
    } finally {
      await log.close();
    }
    const expected = JSON.parse(await readFile(`${GOLDEN}context-snapshot/expected/summary.json`, 'utf8'));
    const target = events.find((e) => e.type === 'ProviderCallSucceeded' && e.data.usage !== null && e.jobId!.includes(':snapshot:'))!;
    if (target.type !== 'ProviderCallSucceeded') throw new Error('unreachable');
    const lost = target.data.usage!.total!;
    const edited = events.map((e) => (e === target ? { ...target, data: { ...target.data, usage: null } } : e));
    const summary = (await deriveOutputs('context-snapshot', edited, hooksOf, undefined)).summary as Record<string, Record<string, unknown>>;
    expect(summary.snapshot).to.deep.include({
      usage_complete: false,
      mean_total_tokens: null,
      observed_total_tokens: expected.snapshot.observed_total_tokens - lost,
      requests: expected.snapshot.requests,
    });
    expect(summary.isolated_handoff).to.deep.equal(expected.isolated_handoff);
  });
});

describe('results/context-snapshot (the committed reference run)', () => {
  it('its summary holds the plain per-arm sums and counts of its rows, and it is labelled scripted', async () => {
    const rows = await readRows(new URL('rows.jsonl', DIR));
    const summary = JSON.parse(await readFile(new URL('summary.json', DIR), 'utf8'));
    expect(rows).to.have.length(16);
    // Recomputed here with plain arithmetic, not with summarizeRows.
    for (const arm of ['isolated_handoff', 'snapshot']) {
      const rs = rows.filter((r) => r.arm === arm);
      let tokens = 0;
      let requests = 0;
      for (const r of rs) {
        tokens += r.usage.total_tokens;
        requests += r.usage.requests;
      }
      const complete = rs.every((r) => r.usage.complete);
      const secs = rs.map((r) => r.seconds as number).sort((a, b) => a - b);
      expect(summary[arm], arm).to.include({
        n: rs.length,
        artifact_correct: rs.filter((r) => r.artifact_correct).length,
        clean_success: rs.filter((r) => r.clean_success).length,
        observed_total_tokens: tokens,
        requests,
        usage_complete: complete,
        mean_total_tokens: complete ? tokens / rs.length : null,
      });
      const half = Math.floor(secs.length / 2);
      const median = secs.length % 2 === 1 ? secs[half]! : (secs[half - 1]! + secs[half]!) / 2;
      expect(summary[arm].median_seconds, `${arm} median`).to.be.closeTo(median, 1e-9);
      expect(summary[arm].mean_seconds, `${arm} mean`).to.be.closeTo(secs.reduce((a, b) => a + b, 0) / rs.length, 1e-9);
    }
    const run = JSON.parse(await readFile(new URL('run.json', DIR), 'utf8'));
    expect(run.model.scripted).to.equal(true);
    expect(run.note).to.match(/scripted/);
    expect(summary.scripted).to.equal(true);
  });
});
