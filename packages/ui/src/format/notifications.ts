/**
 * The reply-mail setting's label (docs/chat.md), shown on /account and quoted by the mail itself.
 * Here, free of zod, so the account page's chunk stays without the schemas: zod's first object
 * parse probes `Function('')`, which the site's CSP (no 'unsafe-eval') reports as a violation.
 */
export const CHAT_REPLY_MAIL_LABEL = 'E-mail me when the team replies while I am away';
