// Runs the CLI from source (through tsx), so e2e tests exercise the code under test, not a stale dist/.
import { launch } from '../../src/cli/launch.js';

launch();
