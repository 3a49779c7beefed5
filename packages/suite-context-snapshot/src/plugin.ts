// The plugin evalog's registry loads: the context-snapshot suite, its CLI part and its scripted player.
import { definePlugin } from 'evalog';
import { contextSnapshotSuiteCli } from './cli/index.js';
import { contextSnapshotPlayer } from './player.js';
import { contextSnapshotSuite } from './suite.js';

export default definePlugin({
  name: '@evalog/suite-context-snapshot',
  version: '0.1.0',
  suites: [contextSnapshotSuite],
  cli: { 'context-snapshot': contextSnapshotSuiteCli },
  players: [contextSnapshotPlayer],
});
