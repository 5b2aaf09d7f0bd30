/** The API's refusal to an admin who must enrol a second factor first; the clients send them to the setup screen on it. */
export const SECOND_FACTOR_ENROLMENT_REQUIRED = 'Two-factor authentication required: enrol before continuing';
