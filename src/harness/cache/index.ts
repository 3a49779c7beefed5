// The response cache: a ModelCaller decorator over a store of successful responses keyed by the canonical request.
export { cachingCaller } from './caller.js';
export { requestKey } from './key.js';
export { folderStore, type CachedResponse, type ResponseStore } from './store.js';
