/**
 * The embedded RTMP ingest (issue 43): node-media-server 2.7's RTMP session (the protocol only: its
 * HTTP server, relays and transcoding are not used) on a TCP listener of our own, LIVE_RTMP_PORT, in
 * the one process that is the ingest host. OBS publishes `{ingestUrl}/{streamKey}`:
 *
 * 1. On publish the API checks the key (shows.service.ts `showForStreamKey`: the SHA-256 of a
 *    scheduled show's current key); a wrong, rotated-away or reused key is disconnected and nothing
 *    of it is stored or played (only our own ffmpeg may play a stream: a per-process token).
 * 2. Once the encoder's first frames say its size, the show starts (`LiveShowStarted` with its
 *    ladder, liveLadder.ts) and ffmpeg reads the stream back over loopback into plain 2 s segments
 *    per rendition on the ingest host's disk (`DATA_DIR/live/{showId}`), plus the source as it came
 *    when the replay is kept.
 * 3. Every half second each new segment is encrypted with its key window's AES-128 key and IV
 *    (the VOD scheme: transcode/hlsPackaging.ts) and put in the media store with the rendition's
 *    sliding-window playlist, where every API process serves it (live/routes.ts); the plain segment
 *    is deleted.
 * 4. When the encoder disconnects, ffmpeg dies, or an admin ends the show (seen here within 2 s,
 *    whichever process took the request), ffmpeg is stopped, the playlists get `#EXT-X-ENDLIST`, the
 *    show ends, and with `saveReplay` the recording becomes an unpublished library video through
 *    the normal ingest (catalog `ingestVideoFile`: the runners transcode it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as nmsContext from 'node-media-server/src/node_core_ctx.js';
import { setLogType } from 'node-media-server/src/node_core_logger.js';
import NodeRtmpSession from 'node-media-server/src/node_rtmp_session.js';
import { ingestVideoFile } from '../catalog/index.js';
import type { AppContext } from '../kernel/context.js';
import { mediaBinaries } from '../media/index.js';
import { SYSTEM_CALLER } from '../shared/eventMetadata.js';
import { KEY_WINDOW_SEGMENTS, keyFor, sequenceIv, windowKey } from '../transcode/index.js';
import { LIVE_WINDOW_SEGMENTS, type LiveRendition, liveLadderArgs, livePlaylist, plainSegments, planLiveLadder } from './liveLadder.js';
import type { EndReason } from './show.decider.js';
import { findShow, type ShowRow } from './show.projection.js';
import { endShow, recordReplay, showForStreamKey, startShow } from './shows.service.js';

/** The media store's folder of a show's live HLS: `videos/live-{showId}/hls/…`. */
export const liveMediaId = (showId: string) => `live-${showId}`;

/** How long the encoder has to send its first video frame after publishing. */
const FIRST_FRAME_MS = 10_000;
const PUBLISH_EVERY_MS = 500;
const STATUS_EVERY_MS = 2_000;

export interface RtmpIngest {
  port: number;
  stop(): Promise<void>;
}

type Session = InstanceType<typeof NodeRtmpSession>;

const isLoopback = (ip: string | undefined) => ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1';

export async function startRtmpIngest(ctx: AppContext): Promise<RtmpIngest> {
  setLogType(0);
  const config = { rtmp: { port: ctx.env.LIVE_RTMP_PORT, chunk_size: 60000, gop_cache: true, ping: 30, ping_timeout: 60 } };
  /** This listener's sessions (node-media-server's event bus is one per process; other listeners' are not ours). */
  const mine = new Map<string, Session>();
  const runs = new Map<string, LiveRun>();
  const pullToken = randomBytes(16).toString('hex');
  const log = ctx.logger.child({ area: 'live' });

  const server = net.createServer((socket) => {
    const session = new NodeRtmpSession(config, socket);
    mine.set(session.id, session);
    socket.once('close', () => mine.delete(session.id));
    session.run();
  });

  const onPrePlay = (id: string, _streamPath: string, args: Record<string, unknown>) => {
    const session = mine.get(id);
    // Only our own ffmpeg, on loopback with this process's token, reads a stream back.
    if (session && !(isLoopback(session.socket.remoteAddress) && args.t === pullToken)) session.reject();
  };
  const onPrePublish = (id: string, streamPath: string) => {
    const session = mine.get(id);
    if (!session) return;
    const streamKey = streamPath.slice(streamPath.lastIndexOf('/') + 1);
    accept(session, streamPath, streamKey).catch((err) => {
      log.error({ err }, 'live: a publish could not start');
      session.reject();
    });
  };
  const onDonePublish = (id: string) => {
    for (const run of runs.values()) if (run.sessionId === id) void run.finish('encoder_stopped');
  };

  async function accept(session: Session, streamPath: string, streamKey: string) {
    const show = await showForStreamKey(ctx, streamKey);
    if (!show || [...runs.values()].some((r) => r.showId === show.id)) {
      log.info({ showId: show?.id }, 'live: a publish with a wrong, old or reused stream key was refused');
      session.reject();
      return;
    }
    // The first frames say the picture's size (and whether there is sound).
    const deadline = Date.now() + FIRST_FRAME_MS;
    while (session.videoHeight === 0 && Date.now() < deadline && mine.has(session.id)) await sleep(100);
    if (session.videoHeight === 0) return session.reject();
    const soundBy = Date.now() + 1500;
    while (session.audioCodec === 0 && Date.now() < soundBy && mine.has(session.id)) await sleep(100);
    const hasAudio = session.audioCodec !== 0;
    const renditions = planLiveLadder({ width: session.videoWidth, height: session.videoHeight }, hasAudio);
    const started = await startShow(
      ctx,
      show.id,
      streamKey,
      renditions.map(({ name, width, height, bandwidth }) => ({ name, width, height, bandwidth })),
    );
    if (!started.ok || !mine.has(session.id)) return session.reject();
    const input = `rtmp://127.0.0.1:${port}${streamPath}?t=${pullToken}`;
    const run = new LiveRun(ctx, show, session, renditions, hasAudio, input, () => runs.delete(show.id));
    runs.set(show.id, run);
    await run.start();
  }

  const { nodeEvent } = nmsContext;
  nodeEvent.on('prePlay', onPrePlay);
  nodeEvent.on('prePublish', onPrePublish);
  nodeEvent.on('donePublish', onDonePublish);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(ctx.env.LIVE_RTMP_PORT, ctx.env.LIVE_RTMP_HOST, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  log.info({ port }, 'live: RTMP ingest listening');

  return {
    port,
    async stop() {
      nodeEvent.off('prePublish', onPrePublish);
      await Promise.all([...runs.values()].map((r) => r.finish('encoder_stopped')));
      nodeEvent.off('prePlay', onPrePlay);
      nodeEvent.off('donePublish', onDonePublish);
      for (const session of mine.values()) session.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One show on the air: its ffmpeg, the encrypting publisher, the watch on its status. */
class LiveRun {
  readonly showId: string;
  readonly sessionId: string;
  private readonly workDir: string;
  private ffmpeg: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stopping = false;
  private finishing: Promise<void> | undefined;
  private loop: Promise<void> = Promise.resolve();
  private readonly published = new Map<string, { duration: number }[]>();
  private readonly removedUpTo = new Map<string, number>();
  private videoKey: Buffer | undefined;
  private stderr = '';

  constructor(
    private readonly ctx: AppContext,
    private readonly show: ShowRow,
    private readonly session: Session,
    private readonly renditions: LiveRendition[],
    private readonly hasAudio: boolean,
    private readonly input: string,
    private readonly done: () => void,
  ) {
    this.showId = show.id;
    this.sessionId = session.id;
    this.workDir = path.join(ctx.env.DATA_DIR, 'live', show.id);
  }

  private get recording() {
    return Number(this.show.save_replay) ? path.join(this.workDir, 'recording.mkv') : undefined;
  }

  async start() {
    this.videoKey = (await keyFor(this.ctx.db, liveMediaId(this.showId), this.ctx.clock.now().toISOString())).key;
    for (const r of this.renditions) await fsp.mkdir(path.join(this.workDir, r.name), { recursive: true });
    const args = liveLadderArgs({
      input: this.input,
      workDir: this.workDir,
      renditions: this.renditions,
      hasAudio: this.hasAudio,
      preset: this.ctx.env.TRANSCODE_PRESET,
      recordTo: this.recording,
    });
    const child = spawn(mediaBinaries().ffmpeg, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.ffmpeg = child;
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
    child.once('close', (code) => {
      // ffmpeg gave up on its own (the stream broke): the show ends as when the encoder stops.
      if (!this.stopping) {
        this.ctx.logger.warn({ showId: this.showId, code, stderr: this.stderr.trim() }, 'live: ffmpeg stopped');
        void this.finish('encoder_stopped');
      }
    });
    this.loop = this.publishLoop();
  }

  private async publishLoop() {
    let lastStatusCheck = Date.now();
    while (!this.stopping) {
      await this.publishNew(false).catch((err) => this.ctx.logger.error({ err, showId: this.showId }, 'live: publishing segments failed'));
      if (Date.now() - lastStatusCheck >= STATUS_EVERY_MS) {
        lastStatusCheck = Date.now();
        // An admin ended the show (on any process): the encoder is disconnected, which ends the run.
        const row = await findShow(this.ctx.db, this.showId).catch(() => undefined);
        if (row?.status === 'ended') {
          this.session.reject();
          void this.finish('admin');
        }
      }
      await sleep(PUBLISH_EVERY_MS);
    }
  }

  /** Encrypts and stores the segments ffmpeg closed since the last pass, and each rendition's playlist. */
  private async publishNew(ended: boolean) {
    const key = this.videoKey as Buffer;
    const media = this.ctx.media;
    const id = liveMediaId(this.showId);
    for (const r of this.renditions) {
      const dir = path.join(this.workDir, r.name);
      const plain = await fsp.readFile(path.join(dir, 'index.m3u8'), 'utf8').catch(() => null);
      const segments = plain ? plainSegments(plain) : [];
      const done = this.published.get(r.name) ?? [];
      this.published.set(r.name, done);
      const before = done.length;
      for (let i = done.length; i < segments.length; i++) {
        const seg = segments[i] as { file: string; duration: number };
        if (!/^seg_\d{5}\.ts$/.test(seg.file)) throw new Error(`unexpected segment name in ffmpeg's playlist: ${seg.file}`);
        const file = path.join(dir, seg.file);
        const cipher = createCipheriv('aes-128-cbc', windowKey(key, Math.floor(i / KEY_WINDOW_SEGMENTS)), sequenceIv(i));
        const staged = await media.stagingPath('.ts');
        await fsp.writeFile(staged, Buffer.concat([cipher.update(await fsp.readFile(file)), cipher.final()]));
        await media.putFile(id, `hls/${r.name}/seg_${String(i).padStart(5, '0')}.ts`, staged);
        await fsp.rm(file, { force: true });
        done.push({ duration: seg.duration });
      }
      if (done.length === before && !ended) continue;
      const staged = await media.stagingPath('.m3u8');
      await fsp.writeFile(staged, livePlaylist(done, { windowSegments: LIVE_WINDOW_SEGMENTS, keyWindow: KEY_WINDOW_SEGMENTS, ended }));
      await media.putFile(id, `hls/${r.name}/index.m3u8`, staged);
      // Segments well behind the window go (a player that fetched the playlist late still finds its segments).
      const keepFrom = done.length - 2 * LIVE_WINDOW_SEGMENTS;
      const from = this.removedUpTo.get(r.name) ?? 0;
      if (keepFrom > from) {
        const old = Array.from(
          { length: keepFrom - from },
          (_, k) => `videos/${id}/hls/${r.name}/seg_${String(from + k).padStart(5, '0')}.ts`,
        );
        await media.removeKeys(old);
        this.removedUpTo.set(r.name, keepFrom);
      }
    }
  }

  /** Ends the run once (the encoder stopped, ffmpeg died, an admin ended the show, the server stops). */
  finish(reason: EndReason): Promise<void> {
    this.finishing ??= this.end(reason).finally(this.done);
    return this.finishing;
  }

  private async end(reason: EndReason) {
    this.stopping = true;
    const child = this.ffmpeg;
    if (child && child.exitCode === null && child.signalCode === null) {
      // SIGINT: ffmpeg closes its last segments and the recording's index, then exits.
      child.kill('SIGINT');
      const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(killed);
    }
    await this.loop;
    await this.publishNew(true).catch((err) =>
      this.ctx.logger.error({ err, showId: this.showId }, 'live: the last segments were not published'),
    );
    const ended = await endShow(this.ctx, this.showId, reason, { ...SYSTEM_CALLER, actor: 'live-ingest' });
    if (!ended.ok) this.ctx.logger.error({ showId: this.showId, error: ended.error }, 'live: the show could not be ended');
    const recording = this.recording;
    if (recording && fs.existsSync(recording) && fs.statSync(recording).size > 0) await this.saveReplay(recording);
    await fsp.rm(this.workDir, { recursive: true, force: true });
  }

  /** The recording as an unpublished library video at the show's access level (the normal ingest and transcode). */
  private async saveReplay(recording: string) {
    const show = this.show;
    const ingested = await ingestVideoFile(this.ctx, {
      filePath: recording,
      originalName: 'replay.mkv',
      title: show.title,
      description: show.description || null,
      accessLevel: show.access_level,
      exclusiveTo: show.exclusive_to ?? '',
      published: false,
      actorId: show.scheduled_by,
      actor: 'live-ingest',
    });
    if (!ingested.ok) {
      this.ctx.logger.error({ showId: show.id, error: ingested.error }, 'live: the replay could not be saved');
      return;
    }
    const recorded = await recordReplay(this.ctx, show.id, ingested.videoId);
    if (!recorded.ok) this.ctx.logger.error({ showId: show.id, error: recorded.error }, 'live: the replay was not recorded on the show');
  }
}
