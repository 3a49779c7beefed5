// `evalog run dataset` flags. The case file is read, hashed and validated here, before the run folder
// exists, so a bad line is reported (file and line) with nothing written.
import { resolve } from 'node:path';
import type { RunFlags } from '../../harness/suite/index.js';
import { readConfigFile } from '../../harness/orchestration/config-file.js';
import { readCaseFile } from './case-file.js';
import { DataChangedError, DatasetSuiteError } from './errors.js';
import { GRADER_NAMES } from './graders.js';
import { readRubric } from './rubric.js';

/** The dataset suite's run flags. */
export const datasetRunFlags: RunFlags = {
  options: {
    data: { type: 'string' },
    prompt: { type: 'string', multiple: true },
    system: { type: 'string' },
    grader: { type: 'string' },
    model: { type: 'string', multiple: true },
  },
  help: `Suite dataset:
  --data FILE           cases: {id, input | messages, expected, grader?, ...vars} as JSON Lines
                        (one object a line), a .json array of objects, or a .csv table with a
                        header row (cells are strings; messages and NAME:json columns hold JSON)
  --prompt TEMPLATE     prompt with {{input}} and {{var}} (default "{{input}}"); repeat for variants (arms p1, p2, …)
  --system TEXT         system message before every case (templates allowed)
  --grader NAME         grader of cases that name none (default exact): ${GRADER_NAMES.join(', ')}
  --grader model:RUBRIC.md   an LLM judge with this rubric (its path and sha256 are pinned in the config)
  --model ID            model id; repeat to compare models (one arm each; the endpoint gets the first)`,
  apply(values, cwd) {
    const configFile = typeof values.config === 'string' ? resolve(cwd, values.config) : undefined;
    const data = dataRef(values.data, configFile, cwd);
    const overrides: Record<string, unknown> = {};
    if (data) {
      const file = readCaseFile(data.path);
      if (data.sha256 !== undefined && data.sha256 !== file.sha256) throw new DataChangedError(data.path, data.sha256, file.sha256);
      overrides.data = { path: file.path, sha256: file.sha256 };
    }
    const prompts = values.prompt as string[] | undefined;
    if (prompts) overrides.prompts = prompts.length === 1 ? prompts[0] : prompts;
    if (values.system !== undefined) overrides.system = values.system;
    const rubric = rubricRef(values.grader, configFile, cwd);
    if (rubric) {
      // The rubric is read and hashed now, before anything is written; the config keeps its path and hash.
      const file = readRubric(rubric.path);
      if (rubric.sha256 !== undefined && rubric.sha256 !== file.sha256) throw new DataChangedError(rubric.path, rubric.sha256, file.sha256, 'rubric file');
      overrides.rubric = { path: file.path, sha256: file.sha256 };
    }
    if (typeof values.grader === 'string') overrides.grader = values.grader.startsWith('model:') ? 'model' : values.grader;
    else if (rubric?.fromGrader) overrides.grader = 'model';
    const models = values.model as string[] | undefined;
    if (models) overrides.models = models;
    return { overrides, model: models?.[0] };
  },
};

/**
 * The case file from --data or the config file's `data` (a path, or {path, sha256} to pin the
 * bytes), resolved against the working directory. Undefined when the config file cannot be read:
 * the config resolution reports that file itself.
 */
function dataRef(flag: unknown, configFile: string | undefined, cwd: string): { path: string; sha256?: string } | undefined {
  if (typeof flag === 'string') return { path: resolve(cwd, flag) };
  if (configFile === undefined)
    throw new DatasetSuiteError('evalog run dataset: give the cases with --data FILE (.jsonl, .json or .csv; or "data" in a --config file)');
  const parsed = configJson(configFile);
  if (parsed === undefined) return undefined;
  const d = parsed.data;
  if (typeof d === 'string') return { path: resolve(cwd, d) };
  if (d !== null && typeof d === 'object' && typeof (d as { path?: unknown }).path === 'string') {
    const pin = (d as { sha256?: unknown }).sha256;
    return { path: resolve(cwd, (d as { path: string }).path), ...(typeof pin === 'string' ? { sha256: pin } : {}) };
  }
  throw new DatasetSuiteError(`config file ${configFile}: field data: give the case file's path (or --data FILE.jsonl)`);
}

/**
 * The rubric file from `--grader model:PATH`, else from the config file (`"grader": "model:PATH"`, or
 * `"rubric"`: a path, or {path, sha256} to pin the bytes), resolved against the working directory.
 * `fromGrader` says the grader name named it (so the grader is `model`). Undefined when none is named.
 */
function rubricRef(flag: unknown, configFile: string | undefined, cwd: string): { path: string; sha256?: string; fromGrader: boolean } | undefined {
  if (typeof flag === 'string') return flag.startsWith('model:') ? { path: resolve(cwd, flag.slice('model:'.length)), fromGrader: true } : undefined;
  const parsed = configFile === undefined ? undefined : configJson(configFile);
  if (parsed === undefined) return undefined;
  if (typeof parsed.grader === 'string' && parsed.grader.startsWith('model:'))
    return { path: resolve(cwd, parsed.grader.slice('model:'.length)), fromGrader: true };
  const r = parsed.rubric;
  if (r === undefined) return undefined;
  if (typeof r === 'string') return { path: resolve(cwd, r), fromGrader: false };
  if (r !== null && typeof r === 'object' && typeof (r as { path?: unknown }).path === 'string') {
    const pin = (r as { sha256?: unknown }).sha256;
    return { path: resolve(cwd, (r as { path: string }).path), fromGrader: false, ...(typeof pin === 'string' ? { sha256: pin } : {}) };
  }
  throw new DatasetSuiteError(`config file ${configFile}: field rubric: give the rubric file's path (or --grader model:RUBRIC.md)`);
}

/** A config file's object (YAML or JSON); undefined when it cannot be read (the config resolution reports that file itself). */
function configJson(configFile: string): Record<string, unknown> | undefined {
  try {
    return readConfigFile(configFile);
  } catch {
    return undefined;
  }
}
