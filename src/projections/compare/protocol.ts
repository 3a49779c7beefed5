// What makes two runs' verdicts comparable: the same suite and the same protocol. A run's protocol
// is the set of content hashes it recorded for what it graded against, so two runs that differ only
// in model, prompt or agent (the things one compares) have the same protocol, and two runs over
// different cases or rules do not.
import type { RunFile } from '../fold/provenance.js';
import { cmp } from '../usage/index.js';
import { ProtocolMismatchError } from './errors.js';

/**
 * A run's protocol as named entries (sorted by name):
 * - every `sha256` the config recorded, by its path (`config.data.sha256` of a dataset run, each
 *   `config.protocolFiles[i].sha256` of a protocol folder, a study's pinned dataset and prompt);
 * - the config's protocol id (`config.protocol`, `config.protocol_id`) where it has one;
 * - a dataset run's grader (`config.grader`): another grader is another pass rule;
 * - the suite's bundled manifests (`provenance.manifests` under `<suite>/`), the cases and
 *   prompts of the built-in suites.
 */
export function protocolOf(run: Pick<RunFile, 'suite' | 'config' | 'provenance'>): [name: string, value: string][] {
  const out: [string, string][] = [];
  hashesIn(run.config, 'config', out);
  for (const key of ['protocol', 'protocol_id']) {
    const v = run.config[key];
    if (typeof v === 'string') out.push([`config.${key}`, v]);
  }
  if (run.suite === 'dataset' && typeof run.config.grader === 'string') out.push(['config.grader', run.config.grader]);
  const manifests = run.provenance.manifests;
  if (typeof manifests === 'object' && manifests !== null) {
    for (const [file, hash] of Object.entries(manifests as Record<string, unknown>)) {
      if (file.startsWith(`${run.suite}/`) && typeof hash === 'string') out.push([`manifests.${file}`, hash]);
    }
  }
  return out.sort((a, b) => cmp(a[0], b[0]));
}

function hashesIn(value: unknown, path: string, out: [string, string][]): void {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) hashesIn(v, `${path}[${i}]`, out);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const key of Object.keys(value).sort(cmp)) {
    const v = (value as Record<string, unknown>)[key];
    if (key === 'sha256' && typeof v === 'string') out.push([`${path}.sha256`, v]);
    else hashesIn(v, `${path}.${key}`, out);
  }
}

/** The first way two runs differ in suite or protocol, as a phrase (`suite dataset vs smoke`), or null when they agree. */
export function protocolDifference(a: Pick<RunFile, 'suite' | 'config' | 'provenance'>, b: Pick<RunFile, 'suite' | 'config' | 'provenance'>): string | null {
  if (a.suite !== b.suite) return `suite ${a.suite} vs ${b.suite}`;
  const pa = new Map(protocolOf(a));
  const pb = new Map(protocolOf(b));
  const names = [...new Set([...pa.keys(), ...pb.keys()])].sort(cmp);
  for (const name of names) {
    const x = pa.get(name) ?? null;
    const y = pb.get(name) ?? null;
    if (x !== y) return `protocol ${name} ${x ?? '(none)'} vs ${y ?? '(none)'}`;
  }
  return null;
}

/** One run as `checkProtocols` sees it. */
export interface ProtocolRun {
  runId: string;
  run: Pick<RunFile, 'suite' | 'config' | 'provenance'>;
}

/**
 * Every run against the first: the differences, one line each (`run b: suite dataset vs smoke`).
 * Unless `force`, the first one is thrown as a ProtocolMismatchError; with it they are returned, to be reported.
 */
export function checkProtocols(runs: readonly ProtocolRun[], force: boolean): string[] {
  const [first, ...rest] = runs;
  if (!first) return [];
  const out: string[] = [];
  for (const r of rest) {
    const d = protocolDifference(first.run, r.run);
    if (d === null) continue;
    const line = `runs ${first.runId} and ${r.runId} differ: ${d}`;
    if (!force) throw new ProtocolMismatchError(`evalog compare: ${line} (--force compares them anyway)`);
    out.push(line);
  }
  return out;
}
