/** A QR code image of any text (the BIP21 payment URI, the second factor's otpauth URI); the `qrcode` package is fetched on first use. */
import { useEffect, useState } from 'react';

export interface QrCodeProps {
  value: string;
  /** The image's alternative text. */
  label: string;
  size?: number;
  testId?: string;
}

export function QrCode({ value, label, size = 220, testId = 'payment-qr' }: QrCodeProps) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let active = true;
    import('qrcode')
      .then((QR) => QR.toDataURL(value, { width: size, margin: 1, errorCorrectionLevel: 'M' }))
      .then((url) => active && setSrc(url))
      .catch(() => active && setSrc(null));
    return () => {
      active = false;
    };
  }, [value, size]);
  if (!src) return <div className="qr-placeholder" style={{ width: size, height: size }} aria-hidden="true" />;
  return <img className="qr" src={src} width={size} height={size} alt={label} data-testid={testId} />;
}
