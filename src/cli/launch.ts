// The CLI as a process: what bin/evalog.js (over dist/), the tests' compiled tree and their tsx
// entry all run, so each gets the same heap settings and the same exit handling.
import { tuneHeap } from './heap.js';
import { main } from './main.js';

/** Runs `evalog` with this process's arguments and sets the exit code. */
export function launch(): void {
  tuneHeap();
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error((err as Error)?.stack ?? String(err));
      process.exitCode = 1;
    },
  );
}
