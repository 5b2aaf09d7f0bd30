/**
 * The Bitcoin payment view: instructions, amount, address with copy ('Copied' for 3 s), a QR code of
 * the BIP21 URI, an optional transaction hash, 'I've Sent Payment' → 'Payment Submitted'.
 */
import { Alert, Button, FormField, type PlanType, QrCode, type SitePlan, type SubscriptionIntent } from '@members/ui';
import { formatUsd } from '@members/ui/format';
import { formatBtc } from '@members/ui/money';
import { useEffect, useState } from 'react';
import { api } from '../../app/api';

export const COPIED_MS = 3000;

export function bip21Uri(intent: SubscriptionIntent, label: string): string {
  return intent.bip21Uri ?? `bitcoin:${intent.address}?amount=${intent.btcAmount}&label=${encodeURIComponent(label)}`;
}

export interface BitcoinPaymentProps {
  planType: PlanType;
  plan: SitePlan;
  intent: SubscriptionIntent;
  userId: string;
  siteName: string;
  onBack(): void;
  onSubmitted(): void;
}

export function BitcoinPayment({ planType, plan, intent, userId, siteName, onBack, onSubmitted }: BitcoinPaymentProps) {
  const [copied, setCopied] = useState(false);
  const [txHash, setTxHash] = useState('');
  const [state, setState] = useState<'idle' | 'submitting' | 'submitted'>('idle');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(t);
  }, [copied]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(intent.address ?? '');
    } catch {
      // Clipboard API unavailable (http, old browser): select the text for a manual copy.
      const el = document.getElementById('btc-address');
      if (el) window.getSelection()?.selectAllChildren(el);
    }
    setCopied(true);
  }

  async function submit() {
    setState('submitting');
    setError(null);
    const hash = txHash.trim();
    try {
      await api.submitBitcoinPayment({ userId, planType, btcAmount: intent.btcAmount, transactionHash: hash || undefined });
      setState('submitted');
      onSubmitted();
    } catch (err) {
      setState('idle');
      setError((err as Error).message || 'Failed to submit payment. Please try again.');
    }
  }

  return (
    <div className="card payment-view">
      <h2>Pay with Bitcoin — {plan.name}</h2>
      <ol className="instructions">
        <li>
          Send exactly <strong data-testid="btc-amount">{formatBtc(intent.btcAmount)}</strong> (≈ {formatUsd(plan.usdPrice)}) to the address
          below.
        </li>
        <li>Optionally paste your transaction hash so we can find your payment faster.</li>
        <li>
          Click "I've Sent Payment". We verify payments manually within 24 hours; if your subscription is not active after 48 hours, please
          contact support.
        </li>
      </ol>
      <div className="payment-grid">
        <QrCode value={bip21Uri(intent, siteName)} label={`QR code: pay ${formatBtc(intent.btcAmount)} to ${intent.address}`} />
        <div className="payment-fields">
          <div className="field">
            <span className="label">Bitcoin address</span>
            <div className="address-row">
              <code id="btc-address" className="mono address" data-testid="btc-address">
                {intent.address}
              </code>
              <Button variant="secondary" size="sm" onClick={copy} aria-live="polite">
                {copied ? 'Copied' : 'Copy'}
              </Button>
            </div>
          </div>
          {intent.expiresAt && (
            <p className="muted small">This payment request expires on {new Date(intent.expiresAt).toLocaleString('en-US')}.</p>
          )}
          <FormField
            label="Transaction hash (optional)"
            name="transactionHash"
            value={txHash}
            onChange={(e) => setTxHash(e.target.value)}
            placeholder="e.g. 4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"
            autoComplete="off"
            spellCheck={false}
          />
          {error && <Alert>{error}</Alert>}
          <div className="button-row">
            <Button size="lg" busy={state === 'submitting'} busyLabel="Submitting..." disabled={state === 'submitted'} onClick={submit}>
              {state === 'submitted' ? 'Payment Submitted' : "I've Sent Payment"}
            </Button>
            <Button variant="ghost" onClick={onBack} disabled={state !== 'idle'}>
              Back to Plans
            </Button>
          </div>
          <p className="muted small">Bitcoin payments only. Never send any other currency to this address.</p>
        </div>
      </div>
    </div>
  );
}
