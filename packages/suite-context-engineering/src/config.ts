import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { baseConfigShape, DEFAULT_MAX_RETRY_AFTER_MS } from 'evalog';
import type { SessionSettings, SuiteConfigBase } from 'evalog';

/** Agent presets the prompts manifest defines; the scripted model plays each one's policy. */
export const PRESETS = ['skim-v1', 'verify-v1'] as const;

const int = (min: number) => z.number().int().min(min);

/** One frozen experiment cell: everything that decides how its jobs run, fixed before the run. */
export const Cell = z
  .object({
    revision: z.string().min(1).describe('Label of this frozen cell; a new label for any change'),
    provider: z.object({ name: z.string().min(1), model: z.string().min(1).describe('Exact model id sent in every call of the cell') }).strict(),
    sampling: baseConfigShape.model.describe('Temperature, max tokens and reasoning effort of every call'),
    agent: z.object({ preset: z.enum(PRESETS), promptRevision: z.string().min(1).describe('Must equal the prompts manifest revision') }).strict(),
    context: z
      .object({
        windowTokens: int(1).describe('Context window the cell assumes (recorded, not enforced)'),
        compaction: z.enum(['none', 'host_switch_with_notes']).describe('What the host does when the window is replaced (the recovery scenario scripts when)'),
      })
      .strict(),
    fixture: z
      .object({ revision: z.string().min(1), variant: z.string().min(1) })
      .strict()
      .describe("Must equal every scenario file's fixture"),
    switches: z
      .object({
        queries: z.boolean().describe('Tools may run queries (calls attributed query)'),
        children: z.literal(false).describe('Child agents: not in this suite'),
      })
      .strict(),
    concurrency: int(1).describe("Must equal the run's concurrency"),
    timeouts: z.object({ callMs: int(1).describe('Per-attempt timeout, capped by the deadline') }).strict(),
    retries: z
      .object({ maxAttempts: int(1).max(20), backoffMs: int(0), maxBackoffMs: int(0) })
      .strict()
      .describe('Each retry is a new call and counts against the budget'),
    budget: z
      .object({
        mainCalls: int(1).describe('Main attempts per scenario run'),
        modelCalls: int(1).describe('Attempts of every attribution'),
        deadlineMs: int(1).describe('Wall time per scenario run'),
      })
      .strict(),
    repetitions: int(1).describe("Must equal the run's repetitions: cells are compared in pairs"),
    scoringRule: z.literal('state-and-evidence.v1').describe('Decided in advance; see packages/suite-context-engineering/manifests/README.md'),
  })
  .strict();
/** A frozen cell. */
export type Cell = z.infer<typeof Cell>;

/** The suite config: the run's settings and the cells (the arms). Top-level model/worker/provider are unused: each cell carries its own. */
export const ContextEngineeringConfig = z
  .object({
    ...baseConfigShape,
    protocol: z.literal('context-engineering.v1'),
    cells: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,40}$/, 'cell names are lower-case letters, digits and "_"'), Cell),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (Object.keys(c.cells).length === 0) ctx.addIssue({ code: 'custom', path: ['cells'], message: 'at least one cell' });
    for (const [name, cell] of Object.entries(c.cells)) {
      for (const key of ['repetitions', 'concurrency'] as const) {
        if (cell[key] !== c[key])
          ctx.addIssue({
            code: 'custom',
            path: ['cells', name, key],
            message: `is ${cell[key]} but the run's ${key} is ${c[key]}: cells are frozen, edit the cell`,
          });
      }
    }
  });
/** The validated config. */
export type ContextEngineeringConfig = z.infer<typeof ContextEngineeringConfig> & SuiteConfigBase;

/** The versioned cells manifest, hashed into provenance with the suite's other manifests. */
export const CELLS_MANIFEST = new URL('../manifests/cells.v1.json', import.meta.url);

// Required of every suite config, but a session job runs with its cell's settings instead.
const HARNESS = {
  model: { temperature: 0, maxTokens: 1024 },
  worker: { turnCap: 12, timeLimitMs: 120_000 },
  provider: { timeoutMs: 60_000, maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0, maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS },
};

/** The raw cells manifest. */
export function readCellsManifest(): Record<string, unknown> {
  return JSON.parse(readFileSync(CELLS_MANIFEST, 'utf8')) as Record<string, unknown>;
}

/** The default config: the cells manifest plus the harness settings every suite config has. */
export function defaultConfig(): ContextEngineeringConfig {
  return ContextEngineeringConfig.parse({ ...HARNESS, ...readCellsManifest() }) as ContextEngineeringConfig;
}

/** The cell of an arm. */
export function cellOf(config: ContextEngineeringConfig, arm: string): Cell {
  const cell = config.cells[arm];
  if (!cell) throw new Error(`no cell ${JSON.stringify(arm)} in the config`);
  return cell;
}

/** What a job of the cell runs with. */
export function settingsOf(cell: Cell): SessionSettings {
  return {
    model: cell.provider.model,
    sampling: cell.sampling,
    provider: { timeoutMs: cell.timeouts.callMs, ...cell.retries },
    budget: cell.budget,
    queries: cell.switches.queries,
  };
}
