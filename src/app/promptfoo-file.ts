// `evalog run promptfooconfig.yaml`: a promptfoo config loaded as a suite file. The config is compiled
// into the short form's spec and defined as any defineEval suite; what run.json records as the suite
// file's sha256 covers the config and every file it references (prompts, tests), so resume, replay
// and workers refuse the run once any of them changed, as they refuse an edited suite.ts. This module
// does not import suite-file.ts (which imports it): it returns the same shape, written out.
import { resolve } from 'node:path';
import type { DefinedSuite, SuiteCli } from '../harness/suite/index.js';
import type { Player } from '../providers/scripted/index.js';
import { defineEval } from '../suites/eval/index.js';
import { compilePromptfoo, isYamlPath } from '../suites/promptfoo/index.js';

/** Whether `evalog run` reads this path as a promptfoo config. */
export function isPromptfooPath(path: string): boolean {
  return isYamlPath(path);
}

/** The hash run.json records for a config: its bytes and those of every file it references. */
export function promptfooFileHash(file: string, cwd: string): string {
  return compilePromptfoo(resolve(cwd, file), cwd).sha256;
}

/** A promptfoo config as a loaded suite file (the shape of suite-file.ts's LoadedSuiteFile). */
export function loadPromptfooFile(
  file: string,
  cwd: string,
): { suite: DefinedSuite; player: Player | null; cli: SuiteCli | null; file: { path: string; sha256: string; report: boolean } } {
  const compiled = compilePromptfoo(resolve(cwd, file), cwd);
  const suite = defineEval(compiled.spec);
  return {
    suite,
    // The registry's players (the dataset answers, the judge) play it; a config brings none of its own.
    player: null,
    // The short form's own flags (--model), as for a defineEval suite file.
    cli: suite.cli,
    file: { path: compiled.files[0]!, sha256: compiled.sha256, report: suite.report !== undefined || suite.artifactExtension !== undefined },
  };
}
