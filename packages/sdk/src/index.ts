export { Corridor, RESOURCES, withResponse, type CorridorEvent, type DocumentUploadInput, type EventOf, type EventType, type FileInput, type LastResponse, type WithResponse, type Group, type Method, type Payout, type PayoutRequest, type PayoutsGroup, type Quote, type QuoteAndPayInput, type QuoteRequest } from './client.js';
export { CorridorError, RETRYABLE_LEGACY_STATUSES, parseRetryAfter, type CorridorErrorShape, type CorridorFieldError } from './errors.js';
export { endpoint, paged, type ArgsOf, type BodyOf, type Endpoint, type GroupTable, type PathParamsOf, type QueryOf, type ResponseOf } from './operations.js';
export { PagedCall, iteratePages, type CursorPage } from './pagination.js';
export { followEvents, readSse, type SseMessage, type StreamOptions } from './stream.js';
export { Transport, newIdempotencyKey, type CorridorOptions, type HttpMethod, type RequestOptions } from './transport.js';
export { WebhookVerificationError, constructEvent, signWebhook, verifyWebhook, type WebhookHeaders } from './webhooks.js';
export type { components, paths } from './generated/openapi.js';
export type * from './models.js';
