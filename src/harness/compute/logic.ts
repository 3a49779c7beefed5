import { canonicalJson } from '../../core/canonical.js';
import { draft, type AnyDraft } from '../kernel/journal.js';

/**
 * The event of a computed result. The output is recorded as the plain JSON it decodes to (keys
 * sorted, undefined members dropped), so the event a live run appends, the one a log read returns
 * and the one replay recomputes compare equal.
 */
export function decideComputed(output: Record<string, unknown>): AnyDraft[] {
  return [draft('JobComputed', { output: JSON.parse(canonicalJson(output)) as Record<string, unknown> })];
}
