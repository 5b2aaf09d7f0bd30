/**
 * The age gate of spec §2: shown before the layout renders, skipped once `ageVerified` is stored.
 * 'I AM 18+ - ENTER SITE' stores the flag; 'EXIT SITE' leaves for a search engine.
 */
import { type ReactNode, useEffect, useRef, useState } from 'react';

export const AGE_VERIFIED_KEY = 'ageVerified';
export const EXIT_URL = 'https://www.google.com/';

function storedFlag(): boolean {
  try {
    return localStorage.getItem(AGE_VERIFIED_KEY) === 'true';
  } catch {
    return false;
  }
}

export function AgeGate({ children }: { children: ReactNode }) {
  const [verified, setVerified] = useState(storedFlag);
  const enterRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!verified) enterRef.current?.focus();
  }, [verified]);

  if (verified) return <>{children}</>;

  function enter() {
    try {
      localStorage.setItem(AGE_VERIFIED_KEY, 'true');
    } catch {
      // private mode: the gate shows again next visit
    }
    setVerified(true);
  }

  return (
    <div className="age-gate" role="dialog" aria-modal="true" aria-labelledby="age-gate-title" aria-describedby="age-gate-text">
      <div className="age-gate-box">
        <div className="age-gate-18" aria-hidden="true">
          18+
        </div>
        <h1 id="age-gate-title">Adults Only</h1>
        <p id="age-gate-text">
          This website contains age-restricted material including nudity and explicit depictions of sexual activity. By entering, you
          confirm that you are at least 18 years old (or the age of majority where you live) and that you consent to viewing sexually
          explicit content.
        </p>
        <div className="age-gate-actions">
          <button ref={enterRef} type="button" className="btn btn-primary btn-lg" onClick={enter}>
            I AM 18+ - ENTER SITE
          </button>
          <button type="button" className="btn btn-ghost btn-lg" onClick={() => window.location.assign(EXIT_URL)}>
            EXIT SITE
          </button>
        </div>
      </div>
    </div>
  );
}
