import { GENERIC_SUMMARY_LAYOUT, type SummaryGroup, type SummaryLayout } from '../projections/index.js';

/** One scalar of the summary, by its dotted path. Empty objects and arrays are kept as leaves. */
export interface SummaryLeaf {
  path: string;
  value: unknown;
}

/** The summary laid out for the per-arm table, the values untouched. */
export interface SummaryView {
  /** Run-level scalars (run id, suite, model, jobs...). */
  header: SummaryLeaf[];
  arms: { arm: string; leaves: SummaryLeaf[] }[];
  /** Every leaf path of any arm, in first-seen order: the table's rows. */
  fields: string[];
  /** Blocks holding McNemar or bootstrap figures, where the suite's summary has them. */
  paired: { path: string; leaves: SummaryLeaf[] }[];
}

const obj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Flattens nested objects to dotted paths. */
export function leaves(v: unknown, prefix = ''): SummaryLeaf[] {
  if (!obj(v) || Object.keys(v).length === 0) return [{ path: prefix, value: v }];
  return Object.entries(v).flatMap(([k, x]) => leaves(x, prefix ? `${prefix}.${k}` : k));
}

/** True for a block of paired statistics itself. */
const isBlock = (v: Record<string, unknown>): boolean => 'mcnemar' in v || 'bootstrap' in v || ('p_value' in v && 'only_first_correct' in v);

/** True for an object (or array: the generic summary's `paired` is a list of arm pairs) that is, or holds, paired statistics. */
function isPaired(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(isPaired);
  if (!obj(v)) return false;
  return isBlock(v) || Object.values(v).some(isPaired);
}

/** Where paired statistics sit in the summary (outermost blocks only); a list's members by index. */
function pairedBlocks(v: unknown, path: string): { path: string; leaves: SummaryLeaf[] }[] {
  const at = (k: string | number) => (path ? `${path}.${k}` : String(k));
  if (Array.isArray(v)) return v.flatMap((x, i) => pairedBlocks(x, at(i)));
  if (!obj(v)) return [];
  if (isBlock(v)) return [{ path, leaves: leaves(v) }];
  return Object.entries(v).flatMap(([k, x]) => pairedBlocks(x, at(k)));
}

/**
 * The summary laid out as its suite's report says (`layout`, see projections/summary-layout.ts):
 * each group's arms become the table's columns, with their figures as they are; paired
 * statistics go apart; the rest is the header. Only the layout is chosen here.
 */
export function summaryView(summary: unknown, layout: SummaryLayout = GENERIC_SUMMARY_LAYOUT): SummaryView {
  const header: SummaryLeaf[] = [];
  const arms: SummaryView['arms'] = [];
  if (obj(summary)) {
    const keyed = new Map(layout.groups.flatMap((g) => (g.key === null ? [] : [[g.key, g] as const])));
    const topLevel = layout.groups.find((g) => g.key === null);
    for (const [k, v] of Object.entries(summary)) {
      const group = keyed.get(k);
      if (group && obj(v)) for (const [arm, figures] of Object.entries(v)) arms.push(...armsOf(group, arm, figures));
      else if (isPaired(v)) continue;
      else if (topLevel && obj(v)) arms.push(...armsOf(topLevel, k, v));
      else header.push(...leaves(v, k));
    }
  }
  const fields: string[] = [];
  const seen = new Set<string>();
  for (const a of arms) {
    for (const l of a.leaves) {
      if (seen.has(l.path)) continue;
      seen.add(l.path);
      fields.push(l.path);
    }
  }
  return { header, arms, fields, paired: pairedBlocks(summary, '') };
}

/** One arm's columns in a group: one, or one per part at depth 2 (when every part is an object of figures). */
function armsOf(group: SummaryGroup, arm: string, figures: unknown): SummaryView['arms'] {
  const name = (n: string) => (group.suffix === undefined ? n : `${n} / ${group.suffix}`);
  if (group.depth === 2 && obj(figures) && Object.values(figures).every(obj)) {
    return Object.entries(figures).map(([part, f]) => ({ arm: name(`${arm} / ${part}`), leaves: leaves(f) }));
  }
  return [{ arm: name(arm), leaves: leaves(figures) }];
}
