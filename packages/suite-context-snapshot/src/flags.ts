// `evalog run context-snapshot` flags. The protocol folder is read, hashed and checked here, before
// the run folder exists, so a folder that is not the published protocol (without --allow-unpinned),
// or one that cannot be read, is one line and exit 2 with nothing written.
import { resolve } from 'node:path';
import type { RunFlags } from 'evalog';
import { UserError } from 'evalog';
import { BUNDLED_PROTOCOL_ID } from './config.js';
import { loadContextSnapshotProtocol } from './protocol/index.js';
import { protocolOverrides, unpinnedFiles } from './protocol-run.js';

/** A flag of `evalog run context-snapshot` given in a way it cannot be used. */
export class ContextSnapshotFlagError extends UserError {
  override name = 'ContextSnapshotFlagError';
}

/** The context-snapshot suite's run flags. */
export const contextSnapshotRunFlags: RunFlags = {
  options: {
    'protocol-dir': { type: 'string' },
    'allow-unpinned': { type: 'boolean' },
  },
  help: `Suite context-snapshot:
  --protocol-dir DIR    run the published protocol from your copy of deer-flow's
                        backend/scripts/benchmark/context_snapshot/ (cases.py, prompts.py, config.json
                        by pinned sha256; its config.json sets the run's settings); without it, evalog's
                        own bundled variant (${BUNDLED_PROTOCOL_ID}) runs
  --allow-unpinned      accept protocol files that are not the published bytes (the run and its
                        outputs then say "unpinned protocol" and record the hashes read)`,
  apply(values, cwd) {
    const allowUnpinned = values['allow-unpinned'] === true;
    if (typeof values['protocol-dir'] !== 'string') {
      if (allowUnpinned) throw new ContextSnapshotFlagError('evalog run context-snapshot: --allow-unpinned needs --protocol-dir DIR');
      return {
        overrides: {},
        model: oneModel(values.model),
        notices: [`context-snapshot: evalog's own bundled variant (${BUNDLED_PROTOCOL_ID}), not the published protocol; --protocol-dir DIR runs that one`],
      };
    }
    // The protocol's config.json fixes the seeds; concurrency changes no result, so a flag may still set it.
    if (values.seed !== undefined)
      throw new ContextSnapshotFlagError("evalog run context-snapshot: --seed cannot be used with --protocol-dir: the protocol's config.json fixes the seed");
    const protocol = loadContextSnapshotProtocol(resolve(cwd, values['protocol-dir']), { allowUnpinned });
    const overrides = protocolOverrides(protocol, allowUnpinned);
    if (values.concurrency !== undefined) delete overrides.concurrency;
    const unpinned = unpinnedFiles(protocol);
    const notice =
      unpinned.length === 0
        ? `context-snapshot: protocol ${protocol.id} from ${protocol.source}: the published bytes (pinned sha256)`
        : `context-snapshot: unpinned protocol ${protocol.id} from ${protocol.source}: ${unpinned.join(', ')} ${unpinned.length === 1 ? 'is' : 'are'} not the published bytes; the hashes read are recorded`;
    return { overrides, model: oneModel(values.model), notices: [notice] };
  },
};

// --model is repeatable for the suites that compare models; this one runs one.
function oneModel(value: unknown): string | undefined {
  const all = Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : [];
  if (all.length > 1) throw new ContextSnapshotFlagError(`evalog run: --model is given ${all.length} times; suite context-snapshot runs one model`);
  return all[0];
}
