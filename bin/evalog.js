#!/usr/bin/env node
// Thin launcher: `npm run build` (run on install via `prepare`) compiles src/ to dist/ and bundles
// the CLI into dist/bundle/, which starts evalog (scripts/bundle-cli.ts says why a bundle).
import '../dist/bundle/evalog.js';
