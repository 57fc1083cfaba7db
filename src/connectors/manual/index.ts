import { defineConnector } from '../definition.js';
import { ManualConnector } from './manual.js';

/**
 * The operator's manual queue: built in every process, serving in production the routes no real rail
 * serves. Its payouts wait in processing until the operator settles them, so they are its backlog;
 * the reasons are the operator's own words.
 */
export const manual = defineConnector({
  name: 'manual',
  build: () => new ManualConnector(),
  reasons: [],
  backlog: ['queued', 'processing'],
});
