import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { Task, TASK_SHAPES, TASKS_DIR } from './manifest.js';

/** The task ids, in the published protocol's order. */
export const TASK_IDS = Object.keys(TASK_SHAPES) as (keyof typeof TASK_SHAPES)[];

/** A task manifest that cannot be used: names the file and the field at fault. */
export class TaskManifestError extends Error {
  override name = 'TaskManifestError';
  /** Path of the offending file. */
  readonly file: string;
  /** The field at fault, as a dotted path (`(file)` when the file itself is unreadable). */
  readonly field: string;

  constructor(file: string, field: string, detail: string) {
    super(`${file}: ${field}: ${detail}`);
    this.file = file;
    this.field = field;
  }
}

/** The hidden-check ids of a task: the expected keys (JSON) or the check ids (JavaScript). */
export function checkIds(task: Task): string[] {
  return task.kind === 'json' ? Object.keys(task.expected) : task.checks.map((c) => c.id);
}

const fieldOf = (path: readonly PropertyKey[]): string => (path.length === 0 ? '(root)' : path.map(String).join('.'));

/** The first schema problem, as a field and a message (unknown keys are named as fields). */
function firstIssue(error: z.ZodError): { field: string; detail: string } {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    return { field: issue.keys.map((k) => fieldOf([...issue.path, k])).join(', '), detail: 'unknown key' };
  }
  return { field: fieldOf(issue.path), detail: issue.message };
}

/** Reads and validates one task file; `id` is the file's stem. */
function loadOne(dir: URL, id: keyof typeof TASK_SHAPES): Task {
  const file = `${id}.json`;
  const path = fileURLToPath(new URL(file, dir));
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TaskManifestError(path, '(file)', code === 'ENOENT' ? 'missing task file' : `not valid JSON: ${(err as Error).message}`);
  }
  const parsed = Task.safeParse(raw);
  if (!parsed.success) {
    const { field, detail } = firstIssue(parsed.error);
    throw new TaskManifestError(path, field, detail);
  }
  const task = parsed.data;
  const shape = TASK_SHAPES[id];
  if (task.id !== id) throw new TaskManifestError(path, 'id', `expected "${id}" (the file name), got "${task.id}"`);
  if (task.category !== shape.category) throw new TaskManifestError(path, 'category', `expected "${shape.category}", got "${task.category}"`);
  if (task.kind !== shape.kind) throw new TaskManifestError(path, 'kind', `expected "${shape.kind}", got "${task.kind}"`);

  const ids = checkIds(task);
  const countField = task.kind === 'json' ? 'expected' : 'checks';
  if (ids.length !== shape.checks) {
    throw new TaskManifestError(path, countField, `expected ${shape.checks} hidden checks, got ${ids.length}`);
  }
  const seen = new Set<string>();
  ids.forEach((checkId, i) => {
    if (seen.has(checkId)) throw new TaskManifestError(path, `checks.${i}.id`, `duplicate check id "${checkId}"`);
    seen.add(checkId);
  });
  task.wrongSolutions.forEach((wrong, i) => {
    const fails = new Set<string>();
    wrong.fails.forEach((checkId, k) => {
      if (!seen.has(checkId)) throw new TaskManifestError(path, `wrongSolutions.${i}.fails.${k}`, `unknown check id "${checkId}"`);
      if (fails.has(checkId)) throw new TaskManifestError(path, `wrongSolutions.${i}.fails.${k}`, `duplicate check id "${checkId}"`);
      fails.add(checkId);
    });
  });
  return task;
}

/**
 * Loads the eight context-snapshot tasks from `dir` (default: TASKS_DIR), one `<id>.json` per task,
 * validated with the `Task` schema and against TASK_SHAPES (ids, category, kind, hidden-check
 * count). Any other `.json` file in the directory is an error. Errors name the file and the field.
 */
export function loadTasks(dir: URL = TASKS_DIR): Task[] {
  const known = new Set<string>(TASK_IDS.map((id) => `${id}.json`));
  for (const name of readdirSync(dir).sort()) {
    if (name.endsWith('.json') && !known.has(name)) {
      throw new TaskManifestError(fileURLToPath(new URL(name, dir)), 'id', `not one of the eight tasks (${TASK_IDS.join(', ')})`);
    }
  }
  return TASK_IDS.map((id) => loadOne(dir, id));
}
