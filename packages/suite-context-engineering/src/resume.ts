import { readCellsManifest } from './config.js';

// Leaves of a JSON value by dotted path, so two cells compare field by field.
function leaves(value: unknown, path: string, out: Map<string, string>): Map<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
  } else {
    out.set(path, JSON.stringify(value));
  }
  return out;
}

/**
 * The cell fields in which a run's recorded config differs from the cells manifest now, e.g.
 * `cells.candidate.agent.preset: recorded "verify-v1", now "skim-v1"`; sorted, empty when none.
 */
export function describeCellChanges(recorded: Record<string, unknown>): string[] {
  const then = leaves(recorded.cells, 'cells', new Map());
  const now = leaves(readCellsManifest().cells, 'cells', new Map());
  const paths = [...new Set([...then.keys(), ...now.keys()])].sort();
  return paths.filter((p) => then.get(p) !== now.get(p)).map((p) => `${p}: recorded ${then.get(p) ?? '(absent)'}, now ${now.get(p) ?? '(absent)'}`);
}
