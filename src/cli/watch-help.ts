/** Help lines of `evalog run --watch` (kept apart from run-watch.ts so run's help loads no watcher). */
export const WATCH_HELP = `  --watch               run, then run again on every save of the suite file, the files beside it
                        or a file the flags name (--data, --config); each run a new folder in runs/
                        (with --out DIR, in DIR), with the response cache on unless --no-cache;
                        after each run, the pass rate and the verdicts flipped since the loop's
                        previous run. Ctrl-C ends the loop with the last run's exit code`;
