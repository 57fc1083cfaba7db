import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Connectors } from '../connectors/connector.js';
import type { Db } from './db/db.js';
import type { CryptoBox } from './lib/crypto-box.js';
import type { SigningKeys } from '../domains/auth/signing-keys.js';
import type { RateSource } from '../domains/fx/rates.js';

/** What every module's routes and services are built with; passed explicitly, never global. */
export interface AppContext {
  config: Config;
  db: Db;
  box: CryptoBox;
  keys: SigningKeys;
  log: FastifyBaseLogger;
  rates: RateSource;
  /** The connectors of this process and which serves each route (src/connectors/registry.ts). */
  connectors: Connectors;
}
