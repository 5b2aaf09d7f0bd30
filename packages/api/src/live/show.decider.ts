/**
 * A live show (issue 43), stream `live-show-{showId}`: scheduled (title, access level, start, whether
 * the replay is kept, the SHA-256 of its stream key) → live (the encoder published with the current
 * key) → ended (the encoder stopped or an admin ended it) → its replay recorded as a library video.
 * The key may be rotated until the show ends; an old key never starts it. Pure: ids, time, the key's
 * hash and who acts arrive in the command; the key itself is never in an event.
 */
import { accept, type Decider, reject } from '../shared/decider.js';

export const showStream = (showId: string) => `live-show-${showId}`;

export const SHOW_NOT_FOUND = 'Live show not found';
export const TITLE_REQUIRED = 'title: Please give the show a title';

export type ShowStatus = 'none' | 'scheduled' | 'live' | 'ended';
export type AccessLevel = 'free' | 'premium' | 'vip';
export type EndReason = 'encoder_stopped' | 'admin';

export type ShowCommand =
  | {
      type: 'ScheduleShow';
      showId: string;
      title: string;
      description: string;
      accessLevel: AccessLevel;
      exclusiveTo: 'annual' | null;
      startsAt: string;
      saveReplay: boolean;
      keyHash: string;
      scheduledBy: string;
      now: string;
    }
  | { type: 'RotateShowKey'; showId: string; keyHash: string; rotatedBy: string; now: string }
  | { type: 'StartShow'; showId: string; keyHash: string; renditions: LiveRenditionInfo[]; now: string }
  | { type: 'EndShow'; showId: string; reason: EndReason; endedBy: string | null; now: string }
  | { type: 'RecordShowReplay'; showId: string; videoId: string; now: string };

export interface LiveShowScheduled {
  type: 'LiveShowScheduled';
  data: {
    showId: string;
    title: string;
    description: string;
    accessLevel: AccessLevel;
    exclusiveTo: 'annual' | null;
    startsAt: string;
    saveReplay: boolean;
    keyHash: string;
    scheduledBy: string;
    scheduledAt: string;
  };
}
export interface LiveShowKeyRotated {
  type: 'LiveShowKeyRotated';
  data: { showId: string; keyHash: string; rotatedBy: string; rotatedAt: string };
}
/** One rung of a show's live ladder (capped by the source the encoder sends). */
export interface LiveRenditionInfo {
  name: string;
  width: number;
  height: number;
  bandwidth: number;
}
export interface LiveShowStarted {
  type: 'LiveShowStarted';
  data: { showId: string; renditions: LiveRenditionInfo[]; startedAt: string };
}
export interface LiveShowEnded {
  type: 'LiveShowEnded';
  data: { showId: string; reason: EndReason; endedBy: string | null; endedAt: string };
}
export interface LiveShowReplayRecorded {
  type: 'LiveShowReplayRecorded';
  data: { showId: string; videoId: string; recordedAt: string };
}
export type ShowEvent = LiveShowScheduled | LiveShowKeyRotated | LiveShowStarted | LiveShowEnded | LiveShowReplayRecorded;
export const SHOW_EVENT_TYPES = [
  'LiveShowScheduled',
  'LiveShowKeyRotated',
  'LiveShowStarted',
  'LiveShowEnded',
  'LiveShowReplayRecorded',
] as const;

export interface ShowState {
  status: ShowStatus;
  keyHash?: string;
  saveReplay?: boolean;
  replayVideoId?: string;
}

function decide(command: ShowCommand, state: ShowState) {
  if (command.type !== 'ScheduleShow' && state.status === 'none') return reject('live.show_not_found', SHOW_NOT_FOUND);
  switch (command.type) {
    case 'ScheduleShow': {
      if (state.status !== 'none') return reject('live.state_conflict', 'This show was already scheduled');
      const title = command.title.trim();
      if (!title) return reject('validation.invalid_input', TITLE_REQUIRED);
      return accept<ShowEvent>({
        type: 'LiveShowScheduled',
        data: {
          showId: command.showId,
          title,
          description: command.description.trim(),
          accessLevel: command.accessLevel,
          exclusiveTo: command.exclusiveTo,
          startsAt: command.startsAt,
          saveReplay: command.saveReplay,
          keyHash: command.keyHash,
          scheduledBy: command.scheduledBy,
          scheduledAt: command.now,
        },
      });
    }
    case 'RotateShowKey':
      if (state.status === 'ended') return reject('live.state_conflict', 'This show has ended');
      return accept<ShowEvent>({
        type: 'LiveShowKeyRotated',
        data: { showId: command.showId, keyHash: command.keyHash, rotatedBy: command.rotatedBy, rotatedAt: command.now },
      });
    case 'StartShow':
      // Only the current key starts the show, and only once: a reused key after the end is refused.
      if (command.keyHash !== state.keyHash) return reject('live.state_conflict', 'This stream key is not the show’s current key');
      if (state.status === 'live') return reject('live.state_conflict', 'This show is already live');
      if (state.status === 'ended') return reject('live.state_conflict', 'This show has ended');
      return accept<ShowEvent>({
        type: 'LiveShowStarted',
        data: { showId: command.showId, renditions: command.renditions, startedAt: command.now },
      });
    case 'EndShow':
      // Ending twice (the encoder stops after an admin ended the show) changes nothing.
      if (state.status === 'ended') return accept<ShowEvent>();
      return accept<ShowEvent>({
        type: 'LiveShowEnded',
        data: { showId: command.showId, reason: command.reason, endedBy: command.endedBy, endedAt: command.now },
      });
    case 'RecordShowReplay':
      if (state.status !== 'ended') return reject('live.state_conflict', 'Only an ended show has a replay');
      if (!state.saveReplay) return reject('live.state_conflict', 'This show does not keep its replay');
      if (state.replayVideoId)
        return state.replayVideoId === command.videoId
          ? accept<ShowEvent>()
          : reject('live.state_conflict', 'The replay is already recorded');
      return accept<ShowEvent>({
        type: 'LiveShowReplayRecorded',
        data: { showId: command.showId, videoId: command.videoId, recordedAt: command.now },
      });
  }
}

function evolve(state: ShowState, event: ShowEvent): ShowState {
  switch (event.type) {
    case 'LiveShowScheduled':
      return { status: 'scheduled', keyHash: event.data.keyHash, saveReplay: event.data.saveReplay };
    case 'LiveShowKeyRotated':
      return { ...state, keyHash: event.data.keyHash };
    case 'LiveShowStarted':
      return { ...state, status: 'live' };
    case 'LiveShowEnded':
      return { ...state, status: 'ended' };
    case 'LiveShowReplayRecorded':
      return { ...state, replayVideoId: event.data.videoId };
  }
}

export const showDecider: Decider<ShowCommand, ShowEvent, ShowState> = {
  initialState: () => ({ status: 'none' }),
  decide,
  evolve,
};
