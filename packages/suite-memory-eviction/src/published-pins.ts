/**
 * The published memory-eviction protocol, by hash only. evalog never holds its files: a user points
 * `--protocol-dir` at their copy of upstream's `deermem_eviction/` folder, and these hashes prove
 * that the copy is the published protocol. Hashes are facts about the files, not their text.
 */
import type { ProtocolArtifacts } from './protocol.js';

/** Where each protocol file lives in an upstream `deermem_eviction/` folder. */
export const UPSTREAM_LAYOUT = {
  config: 'configs/pr4789-reproduction-v1.yaml',
  official: 'manifests/longmemeval-pr4789-v1.json',
  synthetic: 'manifests/synthetic-corrections-pr4789-v1.json',
  answerPrompt: 'prompts/answer-v1.txt',
} as const;

/**
 * sha256 of the four files' bytes, as the `artifacts` block of the published `qa_run.json` records
 * them (zhudao/deer-flow @ 4f08fa634942c71d34818b8d52a20cdae59c5228,
 * backend/scripts/benchmark/deermem_eviction/results/pr4789-reproduction-v1/qa_run.json).
 */
export const PUBLISHED_ARTIFACTS: Readonly<ProtocolArtifacts> = Object.freeze({
  config_sha256: 'e0bcd1581be8457c614a4159b87304e54501d48a7e07990b02f1f6f8627fa026',
  official_manifest_sha256: '7f9b26f3bfb7a19c75af53af77ac5ebaa02eeb05c7824c5b5c08be0d9e43db4b',
  synthetic_manifest_sha256: '2f0c7f9bc05f87322bf3e2d8c33aeb9ec3bf27fb12772cda43915e4d75c2be1e',
  answer_prompt_sha256: '2bd4f166219946ccff7ac86f52a053c6dbf8be6d27e178c398d6bf70cf8a7423',
});

/** Each layout file with the artifact hash it is pinned to. */
export const PINNED_FILES: readonly { path: string; artifact: keyof ProtocolArtifacts }[] = [
  { path: UPSTREAM_LAYOUT.config, artifact: 'config_sha256' },
  { path: UPSTREAM_LAYOUT.official, artifact: 'official_manifest_sha256' },
  { path: UPSTREAM_LAYOUT.synthetic, artifact: 'synthetic_manifest_sha256' },
  { path: UPSTREAM_LAYOUT.answerPrompt, artifact: 'answer_prompt_sha256' },
];
