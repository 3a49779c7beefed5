// A promptfoo config, compiled into evalog's short form (an EvalSpec): its prompts become prompt
// arms, its providers model arms, its tests the cases (vars as the input, the compiled asserts as
// the expected value), and the asserts one scorer. The config and every file it references are read
// here, once, and hashed together, so a run records one hash for all the bytes its suite came from.
import { basename, extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { EvalDefaults, EvalSpec } from '../eval/spec.js';
import { isJudged, type PromptfooExpected } from './assert-types.js';
import { at, isRecord, onlyKeys, refuse, shown, type Where } from './errors.js';
import { compilePrompts } from './prompts.js';
import { providerPlan } from './providers.js';
import { promptfooScorer } from './scorer.js';
import { shownPath, Sources } from './sources.js';
import { compileTests } from './tests.js';

/** The config keys evalog reads; any other is refused. */
export const CONFIG_KEYS = ['description', 'prompts', 'providers', 'tests', 'defaultTest', 'evaluateOptions'] as const;
const EVALUATE_KEYS = ['repeat', 'maxConcurrency'] as const;

/** A compiled config: the spec, the files it was read from, and their one hash. */
export interface CompiledPromptfoo {
  spec: EvalSpec;
  /** Every file read (the config first), as messages show them. */
  files: string[];
  /** sha256 of the config's bytes and each referenced file's name and bytes. */
  sha256: string;
}

/** Whether a path names a YAML file (what `evalog run` reads as a promptfoo config). */
export function isYamlPath(path: string): boolean {
  return /\.ya?ml$/i.test(path);
}

/** Reads and compiles the config at `absolute` (messages show paths relative to `cwd`). */
export function compilePromptfoo(absolute: string, cwd: string): CompiledPromptfoo {
  const sources = new Sources(absolute, cwd);
  const file = shownPath(absolute, cwd);
  const root: Where = { file, path: '' };
  const doc = parseConfig(root, sources.read(root, absolute, file));
  const prompts = compilePrompts(at(root, 'prompts'), doc.prompts, sources);
  const providers = providerPlan(at(root, 'providers'), doc.providers);
  const tests = compileTests(root, doc.tests, doc.defaultTest, sources);
  // Every placeholder of every prompt must have a value in every test: promptfoo would send an empty string.
  for (const p of prompts) {
    for (const t of tests) {
      const missing = p.names.filter((n) => !Object.hasOwn(t.vars, n));
      if (missing.length > 0) {
        const test = t.where.file === file ? t.where.path : `${t.where.file} ${t.where.path}`;
        throw refuse(
          p.where,
          `uses ${missing.map((n) => `{{${n}}}`).join(', ')}, which ${test} does not give (its vars: ${Object.keys(t.vars).join(', ') || 'none'})`,
        );
      }
    }
  }
  const judged = tests.some((t) => t.asserts.some((a) => isJudged(a.type)));
  const cases = tests.map((t) => {
    const js = t.asserts.some((a) => a.type === 'javascript');
    const expected: PromptfooExpected = { asserts: t.asserts, threshold: t.threshold, vars: js ? t.vars : null };
    return { id: t.id, input: t.vars, expected };
  });
  const spec: EvalSpec = {
    name: suiteName(absolute),
    description: typeof doc.description === 'string' && doc.description.trim() !== '' ? doc.description.trim() : `promptfoo config ${file}`,
    data: cases,
    task: prompts.length === 1 ? prompts[0]!.template : Object.fromEntries(prompts.map((p) => [p.arm, p.template])),
    scorers: [promptfooScorer(judged)],
    ...(providers.models.length > 0 ? { models: providers.models } : {}),
    defaults: defaultsOf(at(root, 'evaluateOptions'), doc.evaluateOptions, providers.sampling),
  };
  return { spec, files: sources.files.map((f) => f.shown), sha256: sources.sha256() };
}

function parseConfig(root: Where, text: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw refuse(root, `not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isRecord(doc) || !('prompts' in doc || 'providers' in doc || 'tests' in doc))
    throw refuse(root, 'is not a promptfoo config (a YAML mapping with prompts, providers and tests); evalog runs a .yaml file as one');
  onlyKeys(root, doc, CONFIG_KEYS, 'config');
  if (doc.description !== undefined && typeof doc.description !== 'string')
    throw refuse(at(root, 'description'), `must be a string, got ${shown(doc.description)}`);
  return doc;
}

function defaultsOf(where: Where, options: unknown, sampling: { temperature?: number; maxTokens?: number }): EvalDefaults {
  const out: EvalDefaults = Object.keys(sampling).length > 0 ? { model: sampling } : {};
  if (options === undefined || options === null) return out;
  if (!isRecord(options)) throw refuse(where, `must be a mapping, got ${shown(options)}`);
  onlyKeys(where, options, EVALUATE_KEYS, 'evaluateOptions');
  const count = (key: string, v: unknown): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw refuse(at(where, key), `must be a whole number of at least 1, got ${shown(v)}`);
    return v;
  };
  if (options.repeat !== undefined) out.repetitions = count('repeat', options.repeat);
  if (options.maxConcurrency !== undefined) out.concurrency = count('maxConcurrency', options.maxConcurrency);
  return out;
}

/** The suite's name: `promptfoo-<the file's name>`, or `promptfoo-<its folder's>` for a file named promptfooconfig. */
export function suiteName(absolute: string): string {
  const stem = basename(absolute, extname(absolute));
  const source = /^promptfooconfig$/i.test(stem) ? basename(absolute.slice(0, -basename(absolute).length - 1)) : stem;
  const slug = source
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 54);
  return slug === '' ? 'promptfoo' : `promptfoo-${slug}`.replace(/-+$/, '');
}
