/** The creator's team (issue 42): staff accounts, their invitations and the record of their reads, as the API answers them. */
import { z } from 'zod';
import { STAFF_ROLES } from '../../access/staffRoles';
import { singleLineText } from './text';

/** A staff member's name as the admin screens, the member history and the audit ledger show it. Defined once. */
export const staffDisplayName = singleLineText({ min: 1, max: 80, empty: 'is required' });

export const staffRoleSchema = z.enum(STAFF_ROLES);

export const staffMemberSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    displayName: z.string(),
    role: staffRoleSchema,
    /** The newest use of any of their sessions (null: never signed in since joining). */
    lastActiveAt: z.string().nullable(),
  })
  .meta({ id: 'StaffMember' });

/** An invitation not yet accepted. */
export const staffInvitationSchema = z
  .object({ id: z.string(), email: z.string(), role: staffRoleSchema, invitedAt: z.string(), expiresAt: z.string() })
  .meta({ id: 'StaffInvitation' });

export const staffListAnswerSchema = z.object({ staff: z.array(staffMemberSchema), invitations: z.array(staffInvitationSchema) });
export const staffInvitedAnswerSchema = z.object({ invitation: staffInvitationSchema });
export const staffMemberAnswerSchema = z.object({ staff: staffMemberSchema });
export const staffRemovedAnswerSchema = z.object({ removed: z.literal(true), sessionsEnded: z.number().int() });

/** What a staff read was: a member's page, a member search, a report export. */
export const STAFF_READ_ACTIONS = ['member.page', 'members.search', 'report.export'] as const;

/** A read of personal data by a staff member (who, what, when; never the data itself). */
export const staffReadSchema = z
  .object({
    at: z.string(),
    staffId: z.string(),
    staffName: z.string(),
    action: z.enum(STAFF_READ_ACTIONS),
    /** The member whose page was opened; null for a search or a report. */
    subjectId: z.string().nullable(),
    /** The report exported (`audit/payments`, `audit/replay`); null otherwise. */
    report: z.string().nullable(),
  })
  .meta({ id: 'StaffRead' });
export const staffReadsAnswerSchema = z.object({ reads: z.array(staffReadSchema), nextCursor: z.string().nullable() });
