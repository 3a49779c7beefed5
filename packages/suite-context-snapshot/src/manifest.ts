import { z } from 'zod';

/** The eight task names, with category, kind and hidden-check count fixed by the published protocol. */
export const TASK_SHAPES = {
  rate_limits: { category: 'conversation_requirements', kind: 'json', checks: 7 },
  invoice_total: { category: 'summary_requirements', kind: 'javascript', checks: 8 },
  pagination: { category: 'revised_decisions', kind: 'javascript', checks: 8 },
  email_cleanup: { category: 'retrievable_context', kind: 'javascript', checks: 5 },
  release_plan: { category: 'distributed_constraints', kind: 'json', checks: 7 },
  fresh_evidence: { category: 'historical_evidence_boundary', kind: 'json', checks: 5 },
  self_contained: { category: 'irrelevant_history_cost', kind: 'json', checks: 4 },
  storage_policy: { category: 'retrievable_context', kind: 'json', checks: 7 },
} as const;

/** A JSON-serialisable value. */
const Json: z.ZodType<unknown> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(Json), z.record(z.string(), Json)]));

/** One hidden check of a JavaScript task: call the function with `args`; expect a value or an error by name. */
export const JsCheck = z
  .object({
    id: z.string().regex(/^[a-z0-9_]+$/),
    args: z.array(Json).describe('Arguments, deep-copied before the call; a mutated argument fails the check'),
    expect: Json.optional().describe('Expected return value (deep equality)'),
    throws: z.string().optional().describe('Expected error class name, e.g. RangeError'),
  })
  .strict()
  .refine((c) => (c.expect === undefined) !== (c.throws === undefined), { message: 'a check has exactly one of expect and throws' });
export type JsCheck = z.infer<typeof JsCheck>;

const Message = z.object({ role: z.enum(['user', 'assistant']), content: z.string().min(1) }).strict();

const Common = {
  id: z.string(),
  category: z.string(),
  /** The short current brief: what the snapshot arm's parent hands on verbatim. */
  brief: z.string().min(1),
  /** The conversation before the task: corrections, revised decisions, stale receipts, noise. */
  history: z.array(Message).min(1),
  /** A summary of earlier context, when the task keeps its rules there. */
  summary: z.string().nullable(),
  /** Bundled documents the worker may read with read_reference. */
  references: z.record(z.string().regex(/^[a-z0-9-]+$/), z.string().min(1)),
  /** A correct artifact: passes every hidden check. */
  referenceSolution: z.string().min(1),
  /** Wrong artifacts and the hidden checks each must fail (exactly). */
  wrongSolutions: z.array(z.object({ content: z.string(), fails: z.array(z.string()).min(1) }).strict()).min(1),
};

/** A JSON task: the artifact is a JSON object; one hidden check per expected key. */
export const JsonTask = z.object({ ...Common, kind: z.literal('json'), expected: z.record(z.string(), Json) }).strict();

/** A JavaScript task: the artifact is the source of one function, run in the sandbox. */
export const JsTask = z
  .object({ ...Common, kind: z.literal('javascript'), functionName: z.string().regex(/^[A-Za-z_$][\w$]*$/), checks: z.array(JsCheck).min(1) })
  .strict();

/** One context-snapshot task. */
export const Task = z.discriminatedUnion('kind', [JsonTask, JsTask]);
export type Task = z.infer<typeof Task>;
export type JsonTask = z.infer<typeof JsonTask>;
export type JsTask = z.infer<typeof JsTask>;

/** Where the tasks live: one file per task, `manifests/context-snapshot/tasks/<id>.json`. */
export const TASKS_DIR = new URL('../manifests/tasks/', import.meta.url);

/** The result of grading one artifact. `passed` = valid and every check passed (and there is one). */
export interface GradeResult {
  valid: boolean;
  /** Why the artifact is invalid (not a JSON object with the expected keys, a banned construct, no such function...). */
  invalidReason: string | null;
  checks: { id: string; passed: boolean; detail: string }[];
  passed: boolean;
}
