import { SHOW_CHAT_MAX_LENGTH } from '@members/ui/api/schemas';
import { describe, it } from 'vitest';
import { deciderSpec, thenError, thenEvents } from '../shared/decider.testkit.js';
import {
  SHOW_CHAT_CLOSED,
  SHOW_CHAT_MESSAGE_NOT_FOUND,
  SHOW_CHAT_MUTED,
  SHOW_CHAT_TEXT_REQUIRED,
  SHOW_CHAT_TEXT_TOO_LONG,
  type ShowChatCommand,
  type ShowChatEvent,
  showChatDecider,
} from './showChat.decider.js';

const { given } = deciderSpec(showChatDecider);
const S = 'show-1';
const T = '2026-12-03T20:05:00.000Z';

const post = (text: string, showStatus: 'scheduled' | 'live' | 'ended' = 'live', userId = 'member-1'): ShowChatCommand => ({
  type: 'PostShowChatMessage',
  showId: S,
  showStatus,
  messageId: 'm-1',
  userId,
  text,
  now: T,
});
const posted: ShowChatEvent = {
  type: 'ShowChatMessagePosted',
  data: { showId: S, messageId: 'm-1', userId: 'member-1', text: 'Hi', postedAt: T },
};
const deleted: ShowChatEvent = {
  type: 'ShowChatMessageDeleted',
  data: { showId: S, messageId: 'm-1', deletedBy: 'staff-1', deletedAt: T },
};
const muted: ShowChatEvent = { type: 'ShowChatMemberMuted', data: { showId: S, userId: 'member-1', mutedBy: 'staff-1', mutedAt: T } };
const del: ShowChatCommand = { type: 'DeleteShowChatMessage', showId: S, messageId: 'm-1', deletedBy: 'staff-1', now: T };
const mute: ShowChatCommand = { type: 'MuteShowChatMember', showId: S, userId: 'member-1', mutedBy: 'staff-1', now: T };
const unmuted: ShowChatEvent = {
  type: 'ShowChatMemberUnmuted',
  data: { showId: S, userId: 'member-1', unmutedBy: 'staff-2', unmutedAt: T },
};
const unmute: ShowChatCommand = { type: 'UnmuteShowChatMember', showId: S, userId: 'member-1', unmutedBy: 'staff-2', now: T };

describe("a live show's chat room", () => {
  it('takes a trimmed message while the show is scheduled or live, and none once it ended', () => {
    thenEvents(given([]).when(post('  Hi ')), [posted]);
    thenEvents(given([]).when(post('Hi', 'scheduled')), [posted]);
    thenError(given([]).when(post('Hi', 'ended')), 'live.chat_closed', SHOW_CHAT_CLOSED);
  });

  it('refuses empty and too long text, and the same message twice', () => {
    thenError(given([]).when(post('   ')), 'validation.invalid_input', SHOW_CHAT_TEXT_REQUIRED);
    thenError(given([]).when(post('x'.repeat(SHOW_CHAT_MAX_LENGTH + 1))), 'validation.invalid_input', SHOW_CHAT_TEXT_TOO_LONG);
    thenError(given([posted]).when(post('Hi')), 'live.state_conflict');
  });

  it('refuses a muted member, and only them', () => {
    thenError(given([muted]).when(post('Hi')), 'live.chat_muted', SHOW_CHAT_MUTED);
    thenEvents(given([muted]).when(post('Hi', 'live', 'member-2')), [
      { ...posted, data: { ...posted.data, userId: 'member-2' } } as ShowChatEvent,
    ]);
  });

  it('deletes a message once (twice records nothing) and refuses an unknown one', () => {
    thenEvents(given([posted]).when(del), [deleted]);
    thenEvents(given([posted, deleted]).when(del), []);
    thenError(given([]).when(del), 'live.chat_message_not_found', SHOW_CHAT_MESSAGE_NOT_FOUND);
  });

  it('mutes a member once (twice records nothing)', () => {
    thenEvents(given([]).when(mute), [muted]);
    thenEvents(given([muted]).when(mute), []);
  });

  it('unmutes a muted member, who may post again; unmuting one not muted records nothing', () => {
    thenEvents(given([muted]).when(unmute), [unmuted]);
    thenEvents(given([muted, unmuted]).when(post('Hi')), [posted]);
    thenEvents(given([]).when(unmute), []);
    thenEvents(given([muted, unmuted]).when(unmute), []);
    // Muted again after an unmute: refused again.
    thenError(given([muted, unmuted, muted]).when(post('Hi')), 'live.chat_muted', SHOW_CHAT_MUTED);
    thenEvents(given([muted, unmuted]).when(mute), [muted]);
  });
});
