#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run on install via `prepare`).
import { tuneHeap } from '../dist/cli/heap.js';
import { main } from '../dist/cli/main.js';

tuneHeap();

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(err?.stack ?? String(err)); process.exitCode = 1; },
);
