export const APPLICATION_STATUSES = ['draft', 'under_review', 'approved', 'more_info_requested', 'rejected'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

export const APPLICATION_TYPES = ['business', 'individual'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

export const RISK_LEVELS = ['low', 'medium', 'high', 'prohibited'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];
export const SCREENING_STATUSES = ['pending', 'in_progress', 'clear', 'flagged', 'failed', 'timed_out'] as const;
export type ScreeningStatus = (typeof SCREENING_STATUSES)[number];

export const DOCUMENT_TYPES = [
  'photo_id',
  'proof_of_address',
  'certificate_of_incorporation',
  'articles_of_association',
  'shareholder_register',
  'bank_statement',
  'other',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
/** The document types a person may hold; the others are the company's. */
export const PERSON_DOCUMENT_TYPES: readonly DocumentType[] = ['photo_id', 'proof_of_address', 'other'];

/** The sections a reviewer can reopen (spec: editableSections). */
export const SECTIONS = ['applicant', 'businessInfo', 'businessActivity', 'individualActivity', 'persons', 'documents'] as const;
export type Section = (typeof SECTIONS)[number];
export const SECTIONS_OF: Record<ApplicationType, readonly Section[]> = {
  business: ['applicant', 'businessInfo', 'businessActivity', 'persons', 'documents'],
  individual: ['applicant', 'individualActivity', 'documents'],
};

/** The application state machine (spec §States and transitions / Application; resubmission from more_info_requested). */
export const applicationTransitions = {
  draft: ['under_review'],
  under_review: ['approved', 'rejected', 'more_info_requested'],
  more_info_requested: ['under_review'],
  approved: [],
  rejected: [],
} as const satisfies Record<ApplicationStatus, readonly ApplicationStatus[]>;

export function canMove(from: ApplicationStatus, to: ApplicationStatus): boolean {
  return (applicationTransitions[from] as readonly ApplicationStatus[]).includes(to);
}

export type ReviewDecision = 'approve' | 'reject' | 'request_info';
export const DECISION_TARGET: Record<ReviewDecision, ApplicationStatus> = {
  approve: 'approved',
  reject: 'rejected',
  request_info: 'more_info_requested',
};
/** The event each move into a state emits. */
export const STATUS_EVENT: Partial<Record<ApplicationStatus, string>> = {
  under_review: 'application.under_review',
  approved: 'application.approved',
  rejected: 'application.rejected',
  more_info_requested: 'application.more_info_requested',
};
