import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Caller } from '../helpers/app.js';

/** Smallest real files of each accepted type (the type is sniffed from the bytes). */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
export const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(64, 1), Buffer.from([0xff, 0xd9])]);

export interface ApplicationView {
  id: string;
  accountId: string;
  applicationType: string;
  createdAt: string;
  status: string;
  editableSections: string[];
  moreInfoReason: string | null;
  registeredName: string | null;
  riskLevel: string | null;
  screeningStatus: string;
  hasIndirectControl: boolean | null;
  indirectControlDetails: string | null;
  [key: string]: unknown;
}

export const BUSINESS = {
  applicationType: 'business',
  companySize: 'sme',
  businessInfo: { registeredName: 'Acme Trading Ltd', registrationNumber: '12345678', country: 'GB', address: { street: '1 High Street', city: 'London', postalCode: 'EC1A 1AA', country: 'GB' } },
  hasIndirectControl: false,
} as const;

export const DIRECTOR = { firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1985-12-10', nationality: 'GB', title: 'Director', ownershipPercentage: 60, nationalId: 'AB123456C' } as const;

export async function createApplication(c: Caller, body: Record<string, unknown> = BUSINESS, headers: Record<string, string> = {}): Promise<ApplicationView> {
  const res = await c.request('POST', '/v2/applications', body, headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<ApplicationView>();
}

export async function addPerson(c: Caller, applicationId: string, body: Record<string, unknown> = DIRECTOR): Promise<string> {
  const res = await c.request('POST', `/v2/applications/${applicationId}/persons`, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

/** Upload URL, PUT of the bytes (through the app, to the URL's path and query), registration. */
export async function addDocument(
  app: FastifyInstance,
  c: Caller,
  applicationId: string,
  type: string,
  personId?: string,
  file: { bytes: Buffer; contentType: string } = { bytes: PDF, contentType: 'application/pdf' },
): Promise<string> {
  const issued = await c.request('POST', `/v2/applications/${applicationId}/documents/upload-url`, { contentType: file.contentType, contentLength: file.bytes.length });
  expect(issued.statusCode, issued.body).toBe(201);
  const { documentKey, uploadUrl } = issued.json<{ documentKey: string; uploadUrl: string }>();
  const url = new URL(uploadUrl);
  const put = await app.inject({ method: 'PUT', url: `${url.pathname}${url.search}`, payload: file.bytes, headers: { 'content-type': file.contentType } });
  expect(put.statusCode, put.body).toBe(200);
  const registered = await c.request('POST', `/v2/applications/${applicationId}/documents`, { documentKey, type, ...(personId ? { personId } : {}) });
  expect(registered.statusCode, registered.body).toBe(201);
  return registered.json<{ id: string }>().id;
}

/** A business application with everything submit needs. */
export async function completeBusiness(app: FastifyInstance, c: Caller, body: Record<string, unknown> = BUSINESS): Promise<{ application: ApplicationView; personId: string }> {
  const application = await createApplication(c, body);
  const personId = await addPerson(c, application.id);
  await addDocument(app, c, application.id, 'photo_id', personId, { bytes: PNG, contentType: 'image/png' });
  await addDocument(app, c, application.id, 'certificate_of_incorporation');
  const terms = await c.request('POST', `/v2/applications/${application.id}/terms-acceptance`, { version: '1' });
  expect(terms.statusCode, terms.body).toBe(200);
  return { application, personId };
}

export async function eventsOf(c: Caller, applicationId: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const res = await c.request('GET', '/v1/events?limit=100');
  expect(res.statusCode, res.body).toBe(200);
  return res
    .json<{ data: { type: string; data: Record<string, unknown> }[] }>()
    .data.filter((e) => e.type.startsWith('application.') && e.data.id === applicationId)
    .reverse();
}
