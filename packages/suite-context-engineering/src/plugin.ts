// The plugin evalog's registry loads: the context-engineering suite, its CLI part and its scripted player.
import { definePlugin } from 'evalog';
import { contextEngineeringPlayer } from './player.js';
import { contextEngineeringCli, contextEngineeringSuite } from './suite.js';

export default definePlugin({
  name: '@evalog/suite-context-engineering',
  version: '0.1.0',
  suites: [contextEngineeringSuite],
  cli: { 'context-engineering': contextEngineeringCli },
  players: [contextEngineeringPlayer],
});
