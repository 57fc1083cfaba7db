import type { JobHandler } from '../../platform/jobs/runner.js';
import { activeBeneficiariesAfter } from '../../domains/beneficiaries/beneficiaries.service.js';
import { screenBeneficiaries } from './screening.service.js';

/** Beneficiaries screened per transaction of a re-screening. */
const RESCREEN_PAGE = 500;

/**
 * After a new list version: every active beneficiary of every workspace is screened again against the
 * active versions and its status and hits recorded, a page per transaction. A run cut short runs again
 * from the start (each screening is simply recorded again).
 */
export const rescreenBeneficiariesJob: JobHandler = async (ctx) => {
  let after: string | null = null;
  for (;;) {
    const page = await activeBeneficiariesAfter(ctx.db, ctx.box, after, RESCREEN_PAGE);
    if (page.length === 0) return;
    await ctx.db.tx((tx) => screenBeneficiaries(ctx, tx, page));
    after = (page[page.length - 1] as { id: string }).id;
    if (page.length < RESCREEN_PAGE) return;
  }
};
