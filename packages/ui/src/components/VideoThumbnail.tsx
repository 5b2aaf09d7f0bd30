/** A small 16:9 thumbnail for tables; a ▶ placeholder when there is none or it does not load (unpublished). */
import { useState } from 'react';

export function VideoThumbnail({ src, className }: { src?: string | null; className?: string }) {
  const [broken, setBroken] = useState<string | null>(null);
  const show = src && broken !== src;
  return (
    <div className={['video-thumb', 'video-thumb-sm', className ?? ''].filter(Boolean).join(' ')}>
      {show ? (
        <img src={src} alt="" loading="lazy" onError={() => setBroken(src)} />
      ) : (
        <div className="video-thumb-fallback" aria-hidden="true">
          ▶
        </div>
      )}
    </div>
  );
}
