import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, type TestApp } from '../helpers/app.js';
import { BUSINESS, completeBusiness, createApplication } from './helpers.js';

/** Personal data of applications never reaches the logs, whatever the answer. */

const chunks: string[] = [];
let t: TestApp;

beforeAll(async () => {
  const logStream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  t = await createTestApp({ env: { LOG_LEVEL: 'debug' }, logStream });
});
afterAll(async () => t.close());

describe('logging', () => {
  it('writes no national id, BVN, tax id or date of birth of an applicant or person to the logs', async () => {
    const c = await newWorkspace(t.app);
    const secrets = { nationalId: 'NID-LOG-4242', bvn: '98765432109', taxId: 'TAX-LOG-7777', dateOfBirth: '1966-06-16' };
    await createApplication(c, {
      applicationType: 'individual',
      applicant: { applicantFirstName: 'Log', applicantLastName: 'Check', applicantNationalId: secrets.nationalId, applicantDateOfBirth: secrets.dateOfBirth },
    });
    const { application } = await completeBusiness(t.app, c, { ...BUSINESS, persons: [{ firstName: 'Pat', lastName: 'Doe', ...secrets, nationality: 'NG' }] });
    // Refusals too: an invalid person, an over-owned one, an incomplete submit, a review.
    await c.request('POST', `/v2/applications/${application.id}/persons`, { firstName: 'Bad', lastName: 'Date', dateOfBirth: '2999-01-01', bvn: secrets.bvn });
    await c.request('POST', `/v2/applications/${application.id}/persons`, { firstName: 'Too', lastName: 'Much', ownershipPercentage: 100, taxId: secrets.taxId });
    await c.request('POST', `/v2/applications/${application.id}/submit`);
    await operator(t.app, 'POST', `/operator/v1/applications/${application.id}/review`, { decision: 'approve' });
    const logs = chunks.join('');
    expect(logs).toContain(application.id);
    for (const secret of Object.values(secrets)) expect(logs).not.toContain(secret);
  });
});
