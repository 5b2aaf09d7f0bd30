/** The watermark's position, moved every few seconds so it cannot be cropped away (spec §9). */
import { useEffect, useState } from 'react';
import { randomWatermarkPosition, WATERMARK_MOVE_MS } from './protection';

export function useWatermark() {
  const [mark, setMark] = useState(randomWatermarkPosition);
  useEffect(() => {
    const t = setInterval(() => setMark(randomWatermarkPosition()), WATERMARK_MOVE_MS);
    return () => clearInterval(t);
  }, []);
  return mark;
}
