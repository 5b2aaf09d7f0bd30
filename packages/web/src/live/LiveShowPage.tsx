/**
 * `/live/:id`: a live show (issue 43). While the show is live, its player: the LIVE badge, no seek
 * bar (play/pause and "Go live" back to the live edge), the member's visible watermark over the
 * picture. Before and after, the API's words instead of an error: "The show has not started",
 * "The show has ended". A refusal (spec §4) shows the decision's message. Beside the player, the
 * show's chat room (open while the show is scheduled or live, read only once it ended); staff with
 * `live.chat` delete messages and mute their authors there.
 */
import { Alert, Button, can, ShowChatRoom, Spinner } from '@members/ui';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { api } from '../app/api';
import { useSession } from '../app/session';
import { useWatermark } from '../player/useWatermark';
import { attachLive, type LiveSource } from './liveSource';

function LivePlayer({ hlsUrl, watermarkText, onEnded }: { hlsUrl: string; watermarkText: string; onEnded: () => void }) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const source = useRef<LiveSource | null>(null);
  const [playing, setPlaying] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const mark = useWatermark();

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    let active = true;
    void attachLive(video, hlsUrl, (details) => active && setProblem(details)).then((s) => {
      if (!active) return s.destroy();
      source.current = s;
      video.dataset.engine = s.engine;
    });
    return () => {
      active = false;
      source.current?.destroy();
      source.current = null;
    };
  }, [hlsUrl]);

  const toggle = () => {
    const video = videoRef.current;
    if (!video) return;
    if (video.paused) {
      source.current?.goLive();
      void video.play();
    } else video.pause();
  };

  return (
    <div className="player-frame live-frame">
      <span className="live-badge" data-testid="live-badge">
        LIVE
      </span>
      <video
        ref={videoRef}
        data-testid="live-video"
        playsInline
        muted
        autoPlay
        disablePictureInPicture
        controlsList="nodownload noplaybackrate noremoteplayback"
        onPlay={() => setPlaying(true)}
        onPause={() => setPlaying(false)}
        onEnded={onEnded}
        onContextMenu={(e) => e.preventDefault()}
      />
      <div className="watermark" data-testid="watermark" aria-hidden="true" style={{ top: `${mark.top}%`, left: `${mark.left}%` }}>
        {watermarkText}
      </div>
      <div className="player-controls">
        <Button variant="secondary" onClick={toggle}>
          {playing ? 'Pause' : 'Play'}
        </Button>
        <Button variant="ghost" onClick={() => source.current?.goLive()}>
          Go live
        </Button>
      </div>
      {problem && (
        <p className="player-message" role="alert">
          The live picture stopped ({problem}). Reload the page to try again.
        </p>
      )}
    </div>
  );
}

export default function LiveShowPage() {
  const { id = '' } = useParams();
  const { user, admin } = useSession();
  const moderator = admin && can(user?.staffRole ?? 'owner', 'live.chat');
  const stream = useQuery({
    queryKey: ['live', 'stream', id],
    queryFn: () => api.getLiveStream(id),
    // Before the show, asked again every 10 s: the page turns into the player when it starts; in the
    // few seconds between the encoder's first packet and the first segments, every 2 s.
    refetchInterval: (q) =>
      q.state.data?.status === 'scheduled' ? 10_000 : q.state.data?.status === 'live' && !q.state.data.hlsUrl ? 2_000 : false,
    retry: false,
  });

  if (stream.isPending) return <Spinner label="Loading the live show..." />;
  if (stream.isError)
    return (
      <div className="container narrow section center">
        <Alert tone="error">{(stream.error as Error).message}</Alert>
        <Link to="/videos">Back to Videos</Link>
      </div>
    );
  const info = stream.data;
  return (
    <div className="container section live-layout">
      <div className="live-main">
        {info.hlsUrl ? (
          <LivePlayer hlsUrl={info.hlsUrl} watermarkText={info.watermarkText} onEnded={() => void stream.refetch()} />
        ) : (
          <p className="player-message" role="status" data-testid="live-message">
            {info.message}
          </p>
        )}
      </div>
      <ShowChatRoom api={api} showId={id} ended={info.status === 'ended'} moderate={moderator} />
    </div>
  );
}
