/**
 * Entitlement per rendition: the tallest HLS rendition a viewer may watch, from the site config's
 * `media` section. The pure rule lives in @members/ui/entitlement, shared with the web app, which
 * lists the qualities a viewer's plan plays and makes the quality claims from the same rule: the
 * stream and the page cannot disagree. Whether they may watch at all is the access decision's call,
 * made before this.
 */
export { type EntitlementInput, entitledRenditions, maxRenditionHeight } from '@members/ui/entitlement';
