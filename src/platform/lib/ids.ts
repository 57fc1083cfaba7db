import { randomUUID } from 'node:crypto';
import { poolRandomBytes } from './random.js';

export const newId = (): string => randomUUID();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID.test(value);

/** Public event ids: `evt_` and 26 url-safe characters. */
export const newEventId = (): string => `evt_${poolRandomBytes(20).toString('base64url').slice(0, 26)}`;

/** A request id for `x-request-id`. */
export const newRequestId = (): string => `req_${poolRandomBytes(12).toString('hex')}`;
