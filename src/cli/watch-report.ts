// What `evalog run --watch` shows after each run of the loop: per arm, the pass rate, and the
// (case, repetition)s whose verdict flipped against the loop's previous run. The flips are the
// paired comparison `evalog compare` makes (compareSides), arm against the same arm; this module
// only chooses what of it a terminal shows, and is a pure function of the two runs' sides.
import { compareSides, SUMMARY_BOOTSTRAP, type Flip, type Side } from '../projections/compare/index.js';

/** One run of the loop, as the report needs it: its number in the loop, its folder, its sides (one per arm). */
export interface LoopRun {
  n: number;
  /** The run folder as the user gave it or the loop made it (relative to the working folder). */
  dir: string;
  sides: readonly Side[];
}

/** Passed of graded: a run's figure for one arm. */
export interface PassRate {
  /** Jobs of the arm in the run. */
  jobs: number;
  /** Jobs that ended with a verdict (a failed or unfinished job concluded nothing). */
  graded: number;
  passed: number;
  /** passed / graded; null when nothing was graded. */
  rate: number | null;
}

/** One arm of the run against the same arm of the previous run. */
export interface ArmReport extends PassRate {
  arm: string;
  /** The arm in the previous run of the loop; null on the first run, or when the arm is new. */
  previous: PassRate | null;
  /** Sorted by case id, then repetition (compareSides' order). */
  flipped: { now_failing: Flip[]; now_passing: Flip[] };
  /** Pairs graded on both runs. */
  paired: number;
  /** Graded now, not in the previous run (a case added, or a job that failed there). */
  unpaired: number;
}

/** The report of one run of the loop (what `--json` prints, one line per run). */
export interface WatchReport {
  run: number;
  dir: string;
  exit_code: number;
  /** The run compared against (the loop's last run that left results); null: none yet. */
  previous_run: { run: number; dir: string } | null;
  arms: ArmReport[];
}

/** Flips shown per direction before "… and N more" (the rest are one `evalog compare` away). */
export const FLIPS_SHOWN = 20;

function rateOf(side: Side): PassRate {
  const graded = side.jobs.filter((j) => j.passed !== null).length;
  const passed = side.jobs.filter((j) => j.passed === true).length;
  return { jobs: side.jobs.length, graded, passed, rate: graded === 0 ? null : passed / graded };
}

/** The report of `current` against `previous` (null on the loop's first run, or when no run before left results). */
export function watchReport(previous: LoopRun | null, current: LoopRun, exitCode: number): WatchReport {
  const before = new Map((previous?.sides ?? []).map((s) => [s.arm, s]));
  const arms = current.sides.map((side): ArmReport => {
    const rate = rateOf(side);
    const old = before.get(side.arm);
    if (!old) return { arm: side.arm, ...rate, previous: null, flipped: { now_failing: [], now_passing: [] }, paired: 0, unpaired: rate.graded };
    // a is the previous run: a_only passed there only (now failing), b_only passes now only.
    const c = compareSides(old, side, SUMMARY_BOOTSTRAP);
    return {
      arm: side.arm,
      ...rate,
      previous: rateOf(old),
      flipped: { now_failing: c.flipped.a_only, now_passing: c.flipped.b_only },
      paired: c.n,
      unpaired: rate.graded - c.n,
    };
  });
  return {
    run: current.n,
    dir: current.dir,
    exit_code: exitCode,
    previous_run: previous ? { run: previous.n, dir: previous.dir } : null,
    arms,
  };
}

const pct = (r: PassRate): string => `${r.passed}/${r.graded} passed${r.rate === null ? '' : ` (${(r.rate * 100).toFixed(1)}%)`}`;
const job = (f: Flip): string => (f.repetition === 1 ? f.case_id : `${f.case_id} (repetition ${f.repetition})`);

function flipLines(label: string, list: readonly Flip[]): string[] {
  if (list.length === 0) return [];
  const shown = list.slice(0, FLIPS_SHOWN).map((f) => `    ${label}  ${job(f)}`);
  return list.length > FLIPS_SHOWN ? [...shown, `    … and ${list.length - FLIPS_SHOWN} more`] : shown;
}

/** The report as terminal lines: a head line, then one block per arm. */
export function reportLines(r: WatchReport): string[] {
  const against = r.previous_run ? ` against run ${r.previous_run.run}` : '';
  const out = [`evalog watch: run ${r.run} (${r.dir}), exit ${r.exit_code}`];
  const named = r.arms.length > 1 || (r.arms[0] !== undefined && r.arms[0].arm !== 'default');
  for (const a of r.arms) {
    const who = named ? `arm ${a.arm}: ` : '';
    if (r.previous_run === null) {
      out.push(`  ${who}${pct(a)}`);
      continue;
    }
    if (a.previous === null) {
      out.push(`  ${who}${pct(a)}; not in run ${r.previous_run.run}`);
      continue;
    }
    const flips = a.flipped.now_failing.length + a.flipped.now_passing.length;
    const added = a.unpaired > 0 ? `, ${a.unpaired} graded now only` : '';
    out.push(
      `  ${who}${pct(a)}, was ${pct(a.previous)}; ${flips === 0 ? 'no verdict flipped' : `${flips} flipped`}${against}${added}`,
      ...flipLines('now failing', a.flipped.now_failing),
      ...flipLines('now passing', a.flipped.now_passing),
    );
  }
  if (r.arms.length === 0) out.push('  no rows');
  return out;
}
