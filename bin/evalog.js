#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run on install via `prepare`).
import { launch } from '../dist/cli/launch.js';

launch();
