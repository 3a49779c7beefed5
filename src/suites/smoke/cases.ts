import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { CaseSpec } from '../../harness/suite/types.js';

const SmokeCase = z
  .object({
    id: z.string().regex(/^[a-z0-9_]+$/),
    order: z.array(z.object({ item: z.string(), qty: z.number().int().positive() }).strict()).min(1),
    catalog: z.record(z.string(), z.number().int().nonnegative().describe('price in cents')),
  })
  .strict();
/** A smoke case: an order to price from a catalog. */
export type SmokeCase = z.infer<typeof SmokeCase>;

const Manifest = z.object({ version: z.literal(1), cases: z.array(SmokeCase).min(1) }).strict();

/** Path of the versioned case manifest, hashed into provenance. */
export const SMOKE_MANIFEST = new URL('../../../manifests/smoke/cases.v1.json', import.meta.url);

/** Loads and validates the smoke manifest. */
export function loadSmokeCases(): CaseSpec<SmokeCase>[] {
  const parsed = Manifest.parse(JSON.parse(readFileSync(SMOKE_MANIFEST, 'utf8')));
  return parsed.cases.map((c) => ({ id: c.id, data: c }));
}

/** Formats cents as a decimal with two digits. */
export function money(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** The correct total of a case. */
export function expectedTotal(c: SmokeCase): string {
  return money(c.order.reduce((sum, l) => sum + l.qty * (c.catalog[l.item] ?? 0), 0));
}
