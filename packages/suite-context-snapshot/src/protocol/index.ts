// The published context-snapshot protocol, read from the user's copy of the upstream folder.
export { CONFIG_KEYS, parseProtocolConfig, REASONING_EFFORTS } from './config.js';
export { ContextSnapshotProtocolError, ProtocolConfigError, ProtocolFileError, ProtocolPathError, UnpinnedProtocolError } from './errors.js';
export { type LoadProtocolOptions, loadContextSnapshotProtocol } from './load.js';
export { checkPins, PROTOCOL_FILES, type ProtocolFileName, type ProtocolPins, PUBLISHED_PINS, sha256Hex } from './pins.js';
export { PROTOCOL_ARMS, parseProtocolCases, parseProtocolPrompts } from './schema.js';
export type { ContextSnapshotProtocol, ProtocolCase, ProtocolConfig, ProtocolFileHash, ProtocolPrompts } from './types.js';
