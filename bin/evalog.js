#!/usr/bin/env node
// Thin launcher: `npm run build` (run on install via `prepare`) compiles src/ to dist/ and bundles
// the CLI into dist/evalog.mjs, which starts evalog (scripts/bundle-cli.ts says why one file).
import '../dist/evalog.mjs';
