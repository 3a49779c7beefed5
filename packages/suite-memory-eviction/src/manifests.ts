/**
 * The two case manifests (spec A2): the official LongMemEval selection (ids only, never dataset
 * text) and the synthetic correction guards. Unknown keys are rejected at every level.
 */
import { z } from 'zod';
import { OFFICIAL_SCENARIOS, SYNTHETIC_SCENARIO } from './types.js';

/** Keys that would carry dataset text (and any `haystack*` key); an official manifest must not contain them anywhere. */
export const FORBIDDEN_MANIFEST_KEYS = ['question', 'answer', 'content', 'haystack'] as const;

const caseId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be a non-empty id of letters, digits, _ . -');
const uniqueList = <T extends z.ZodType<string>>(item: T) =>
  z.array(item).superRefine((list, ctx) => {
    list.forEach((v, i) => {
      if (list.indexOf(v) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `duplicate ${JSON.stringify(v)}` });
    });
  });

const Selection = z
  .strictObject({
    eligible_question_types: uniqueList(z.string().min(1)).min(1),
    excluded_pilot_ids: uniqueList(caseId),
    exclude_abstention_suffix: z.string().min(1),
    answer_min_chars: z.number().int().min(0),
    answer_max_chars: z.number().int().min(0),
    answer_excluded_substrings: z.array(z.string().min(1)),
    evidence_min_chars: z.number().int().min(0),
    evidence_max_chars: z.number().int().min(0),
    take_per_question_type: z.number().int().min(1),
    cases_per_type_per_scenario: z.number().int().min(1),
  })
  .superRefine((s, ctx) => {
    if (s.answer_min_chars > s.answer_max_chars) ctx.addIssue({ code: 'custom', path: ['answer_min_chars'], message: 'must be <= answer_max_chars' });
    if (s.evidence_min_chars > s.evidence_max_chars) ctx.addIssue({ code: 'custom', path: ['evidence_min_chars'], message: 'must be <= evidence_max_chars' });
  });

/** The official manifest `official.v1.json`. */
export const OfficialManifest = z
  .strictObject({
    schema_version: z.literal(1),
    protocol_id: z.string().min(1),
    selection: Selection,
    scenario_order: z
      .array(z.enum(OFFICIAL_SCENARIOS))
      .length(OFFICIAL_SCENARIOS.length)
      .refine((o) => new Set(o).size === o.length, 'scenarios must be unique'),
    loss_ranks: z.array(z.number().int().min(1).max(10)).length(10),
    scenarios: z.strictObject(
      Object.fromEntries(OFFICIAL_SCENARIOS.map((s) => [s, uniqueList(caseId).length(10)])) as Record<
        (typeof OFFICIAL_SCENARIOS)[number],
        z.ZodArray<typeof caseId>
      >,
    ),
  })
  .superRefine((m, ctx) => {
    const sel = m.selection;
    const perScenario = sel.cases_per_type_per_scenario * sel.eligible_question_types.length;
    if (sel.take_per_question_type !== m.scenario_order.length * sel.cases_per_type_per_scenario)
      ctx.addIssue({
        code: 'custom',
        path: ['selection', 'take_per_question_type'],
        message: `must equal ${m.scenario_order.length} scenarios x cases_per_type_per_scenario (${sel.cases_per_type_per_scenario})`,
      });
    if (perScenario !== m.loss_ranks.length)
      ctx.addIssue({
        code: 'custom',
        path: ['selection', 'cases_per_type_per_scenario'],
        message: `cases per scenario (${perScenario}) must equal the number of loss_ranks (${m.loss_ranks.length})`,
      });
    const owner = new Map<string, string>();
    for (const scenario of OFFICIAL_SCENARIOS) {
      m.scenarios[scenario].forEach((id, i) => {
        const path = ['scenarios', scenario, i];
        const previous = owner.get(id);
        if (previous !== undefined && previous !== scenario)
          ctx.addIssue({ code: 'custom', path, message: `${JSON.stringify(id)} is also listed under ${previous}` });
        owner.set(id, scenario);
        if (sel.excluded_pilot_ids.includes(id)) ctx.addIssue({ code: 'custom', path, message: `${JSON.stringify(id)} is an excluded pilot id` });
        if (id.endsWith(sel.exclude_abstention_suffix)) ctx.addIssue({ code: 'custom', path, message: `${JSON.stringify(id)} is an abstention case` });
      });
    }
    if (owner.size !== 40) ctx.addIssue({ code: 'custom', path: ['scenarios'], message: `must list 40 unique case ids in total, got ${owner.size}` });
  });
export type OfficialManifest = z.infer<typeof OfficialManifest>;

const SyntheticCase = z.strictObject({
  case_id: caseId,
  support_fact: z.string().min(1),
  question: z.string().min(1),
  answer: z.literal('NO'),
  loss_rank: z.number().int().min(1).max(10),
});
export type SyntheticCase = z.infer<typeof SyntheticCase>;

/** The synthetic manifest `synthetic.v1.json`. */
export const SyntheticManifest = z.strictObject({
  schema_version: z.literal(1),
  protocol_id: z.string().min(1),
  scenario: z.literal(SYNTHETIC_SCENARIO),
  cases: z
    .array(SyntheticCase)
    .length(5)
    .superRefine((cases, ctx) => {
      const ids = cases.map((c) => c.case_id);
      ids.forEach((id, i) => {
        if (ids.indexOf(id) !== i) ctx.addIssue({ code: 'custom', path: [i, 'case_id'], message: `duplicate case id ${JSON.stringify(id)}` });
      });
    }),
});
export type SyntheticManifest = z.infer<typeof SyntheticManifest>;

/** Paths of keys (at any depth) that an official manifest may not carry. */
export function forbiddenKeyPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => forbiddenKeyPaths(v, [...path, i]));
  if (value === null || typeof value !== 'object') return [];
  const found: (string | number)[][] = [];
  for (const [k, v] of Object.entries(value)) {
    const key = k.toLowerCase();
    if ((FORBIDDEN_MANIFEST_KEYS as readonly string[]).includes(key) || key.startsWith('haystack')) found.push([...path, k]);
    found.push(...forbiddenKeyPaths(v, [...path, k]));
  }
  return found;
}
