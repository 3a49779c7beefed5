import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { InjectionKind } from 'evalog';

/** The worker's tools; a scenario offers a subset. */
export const TOOL_NAMES = ['read_source', 'read_state', 'set_record', 'apply_migration', 'query', 'submit'] as const;
/** A tool name. */
export type ToolName = (typeof TOOL_NAMES)[number];

const SourceId = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/);

/** When a planned injection fires: after reads of a source, after side effects, or at one query of a batch. */
const Trigger = z.union([
  z.object({ reads: SourceId, count: z.number().int().min(1) }).strict(),
  z.object({ effects: z.number().int().min(1) }).strict(),
  z.object({ queryBatch: z.number().int().min(1), query: z.number().int().min(0) }).strict(),
]);

// Which trigger each kind takes: reads for mutations, effects for recovery, a query slot for queries.
const TRIGGER_OF: Record<InjectionKind, 'reads' | 'effects' | 'queryBatch'> = {
  source_mutation: 'reads',
  context_switch: 'effects',
  worker_restart: 'effects',
  query_failure: 'queryBatch',
  query_truncation: 'queryBatch',
};

const PlannedInjection = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    kind: InjectionKind,
    after: Trigger,
    source: SourceId.optional().describe('source_mutation: the source rewritten'),
    lines: z.array(z.string()).optional().describe('source_mutation: the new revision'),
    keepChars: z.number().int().min(0).optional().describe('query_truncation: characters of the reply kept'),
    notice: z.string().min(1).nullable().describe('Host message shown to the agent'),
  })
  .strict()
  .refine((i) => TRIGGER_OF[i.kind] in i.after, {
    message: 'this kind needs another trigger (source_mutation: reads; context_switch, worker_restart: effects; query_*: queryBatch)',
    path: ['after'],
  })
  .refine((i) => i.kind !== 'source_mutation' || (i.source !== undefined && i.lines !== undefined), {
    message: 'source_mutation needs source and lines',
    path: ['source'],
  })
  .refine((i) => i.kind !== 'query_truncation' || i.keepChars !== undefined, { message: 'query_truncation needs keepChars', path: ['keepChars'] });
/** An injection as the scenario plans it. */
export type PlannedInjection = z.infer<typeof PlannedInjection>;

const Evidence = z.object({ id: z.string(), source: SourceId, line: z.number().int().min(1), revision: z.number().int().min(1).nullable() }).strict();

/** One scenario (a case): its fixture environment, its injections, and what the final state must be. */
export const Scenario = z
  .object({
    id: z.string().regex(/^[a-z0-9_]+$/),
    scenario: z.enum(['stale_evidence', 'key_negation', 'query_failure', 'recovery']),
    recovery: z.enum(['context_switch', 'worker_restart']).nullable().describe('The recovery mode, scored separately; null for the other scenarios'),
    fixture: z.object({ revision: z.string().min(1), variant: z.string().min(1) }).strict(),
    title: z.string().min(1),
    task: z.string().min(1).describe('What the agent is asked to do'),
    tools: z.array(z.enum(TOOL_NAMES)).min(1),
    sources: z.record(SourceId, z.array(z.string()).min(1)),
    records: z.record(z.string(), z.string()),
    migrations: z.array(z.string()).describe('Migrations the environment offers, in their required order'),
    injections: z.array(PlannedInjection),
    expect: z
      .object({
        records: z.record(z.string(), z.string()).describe('Final value of each record'),
        migrations: z.array(z.string()).nullable().describe('Migrations applied, in order, each once; null = not checked'),
        evidence: z.array(Evidence).min(1).describe('Key evidence: must be fetched and cited'),
      })
      .strict(),
  })
  .strict();
/** A validated scenario. */
export type Scenario = z.infer<typeof Scenario>;

/** Where the scenario files live: `manifests/scenarios/<id>.json` of this package. */
export const SCENARIOS_DIR = new URL('../manifests/scenarios/', import.meta.url);

/** A scenario file that cannot be used; names the file and the field. */
export class ScenarioManifestError extends Error {
  override name = 'ScenarioManifestError';
  constructor(
    readonly file: string,
    readonly field: string,
    detail: string,
  ) {
    super(`${file}: field ${field}: ${detail}`);
  }
}

/** Loads every scenario file (sorted by name), validated; the id must be the file's stem. */
export function loadScenarios(dir: URL = SCENARIOS_DIR): Scenario[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((name) => {
      const path = fileURLToPath(new URL(name, dir));
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(path, 'utf8'));
      } catch (err) {
        throw new ScenarioManifestError(path, '(file)', `not valid JSON: ${(err as Error).message}`);
      }
      const parsed = Scenario.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const keys = issue.code === 'unrecognized_keys' ? issue.keys : [''];
        throw new ScenarioManifestError(path, keys.map((k) => [...issue.path, k].filter((p) => p !== '').join('.') || '(root)').join(', '), issue.message);
      }
      const s = parsed.data;
      if (s.id !== name.slice(0, -'.json'.length)) throw new ScenarioManifestError(path, 'id', `must be the file name's stem, got ${JSON.stringify(s.id)}`);
      for (const [i, e] of s.expect.evidence.entries()) {
        const lines = s.sources[e.source];
        if (!lines) throw new ScenarioManifestError(path, `expect.evidence.${i}.source`, `no source ${JSON.stringify(e.source)}`);
      }
      return s;
    });
}
