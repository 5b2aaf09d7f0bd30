/** What a refused signed media URL answers (product copy: the player shows it). */
export const STREAM_LINK_INVALID = 'This video link is not valid. Please open the video again.';
export const STREAM_LINK_EXPIRED = 'This video link has expired. Please open the video again.';
