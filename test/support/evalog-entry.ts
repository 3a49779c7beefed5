// Runs the CLI from source (through tsx), so e2e tests exercise the code under test, not a stale dist/.
import { main } from '../../src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error((err as Error)?.stack ?? String(err));
    process.exitCode = 1;
  },
);
