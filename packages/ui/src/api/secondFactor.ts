/** The API's refusal to an admin who must enrol a second factor first; the clients send them to the setup screen on it. */
export const SECOND_FACTOR_ENROLMENT_REQUIRED = 'Two-factor authentication required: enrol before continuing';

/** Whether a login answer asks for the second factor. */
export const isMfaChallenge = (answer: unknown): answer is { mfaRequired: true; mfaToken: string } =>
  Boolean(answer && typeof answer === 'object' && (answer as { mfaRequired?: unknown }).mfaRequired === true);
