import fs from 'node:fs';

/**
 * Which connector serves which route: the operator's CORRIDOR_CONNECTORS_FILE (JSON), read once at
 * start. `routes` maps a route to a connector name (per rail), `workspaces` overrides it per
 * workspace, and every other top-level key is a connector's own section (`bank`, `chains`), which
 * that connector validates when the registry builds it.
 */
export interface ConnectorsConfig {
  routes: Record<string, string>;
  workspaces: Record<string, Record<string, string>>;
  sections: Record<string, unknown>;
}

export const NO_CONNECTORS: ConnectorsConfig = { routes: {}, workspaces: {}, sections: {} };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nameMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where} must be an object of route → connector name`);
  for (const [route, name] of Object.entries(value)) {
    if (typeof name !== 'string' || name === '') throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where}.${route} must be a connector name`);
  }
  return value as Record<string, string>;
}

/** Parses the connectors file's text; the names and routes are checked against what exists when the registry is built. */
export function parseConnectorsConfig(text: string): ConnectorsConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`CORRIDOR_CONNECTORS_FILE is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(parsed)) throw new Error('CORRIDOR_CONNECTORS_FILE must hold a JSON object');
  const { routes, workspaces, ...sections } = parsed;
  if (workspaces !== undefined && !isObject(workspaces)) throw new Error('CORRIDOR_CONNECTORS_FILE: workspaces must be an object of workspace id → routes');
  return {
    routes: nameMap(routes, 'routes'),
    workspaces: Object.fromEntries(Object.entries(workspaces ?? {}).map(([id, map]) => [id, nameMap(map, `workspaces.${id}`)])),
    sections,
  };
}

export function loadConnectorsConfig(file: string | undefined): ConnectorsConfig {
  if (!file) return NO_CONNECTORS;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`CORRIDOR_CONNECTORS_FILE ${file} cannot be read: ${(err as Error).message}`);
  }
  return parseConnectorsConfig(text);
}
