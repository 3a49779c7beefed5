import { assertNever } from '../core/never.js';
import type { Projection } from './fold/projection.js';
import { routed } from './fold/routing.js';
import { own } from '../core/strings.js';
import { cmp } from './usage/index.js';

/** One artifact revision as a file of the run folder (`artifacts/<case>/<arm>.<rep>/revision-N.<ext>`). */
export interface ArtifactFile {
  path: string;
  content: string;
}

interface Job {
  caseId: string;
  arm: string;
  repetition: number;
  /** Made with the first revision: most jobs of most suites have none. */
  revisions: { revision: number; content: string }[] | null;
}

/** State of the artifacts projection: each started job's folder and revisions, by job id. */
export type ArtifactsState = Map<string, Job>;

/** Every revision of every job's artifact, plus `artifact.<ext>` for the last one. */
export function artifactsProjection(extension: (caseId: string) => string): Projection<ArtifactsState, ArtifactFile[]> {
  const ext = new Map<string, string>();
  return routed('artifacts', {
    initialState: (): ArtifactsState => new Map(),
    evolve(jobs: ArtifactsState, e) {
      switch (e.type) {
        case 'JobStarted':
          if (!ext.has(e.data.caseId)) ext.set(own(e.data.caseId), extension(e.data.caseId));
          // Owned copies (shared with the other folds'), not a folder path built from the event's own
          // strings: that kept a piece of every job's JobStarted text alive to the end of a rebuild.
          jobs.set(own(e.jobId!), { caseId: own(e.data.caseId), arm: own(e.data.arm), repetition: e.data.repetition, revisions: null });
          break;
        case 'ArtifactRevised': {
          const job = jobs.get(e.jobId!);
          if (!job) break;
          job.revisions ??= [];
          job.revisions.push({ revision: e.data.revision, content: own(e.data.content) });
          break;
        }
        default:
          assertNever(e);
      }
      return jobs;
    },
    result(jobs: ArtifactsState) {
      const files: ArtifactFile[] = [];
      for (const job of jobs.values()) {
        if (job.revisions === null) continue;
        const dir = `artifacts/${job.caseId}/${job.arm}.${job.repetition}`;
        const x = ext.get(job.caseId) ?? 'txt';
        for (const r of job.revisions) files.push({ path: `${dir}/revision-${r.revision}.${x}`, content: r.content });
        const last = job.revisions.at(-1);
        if (last) files.push({ path: `${dir}/artifact.${x}`, content: last.content });
      }
      return files.sort((a, b) => cmp(a.path, b.path));
    },
  });
}
