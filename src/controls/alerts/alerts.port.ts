/**
 * What other modules may use of the alerts control: the shape of a condition source, so that a
 * connector declares its own conditions (its definition's `conditions`), and the platform's own
 * sources, which the connector registry puts beside the connectors' (`alertSources`).
 */
export { conditionSources, type ConditionSettings, type ConditionSource, type Finding } from './alert-sources.js';
