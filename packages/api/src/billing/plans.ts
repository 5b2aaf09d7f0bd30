/**
 * The two plans, read from the site config (section 9 by default) with prices converted once to
 * integer satoshis, and the calendar arithmetic of a billing period.
 */

import type { planSchema } from '@members/ui/api/schemas';
import { parseBtc, satsToBtc } from '@members/ui/money';
import type { z } from 'zod';
import type { SiteConfig } from '../config/site.js';

export const PLAN_TYPES = ['monthly', 'annual'] as const;
export type PlanType = (typeof PLAN_TYPES)[number];
/** What a payment pays for: a plan, or a member's custom video request (`customRequestId` on its events). */
export const CUSTOM_REQUEST_PAYMENT = 'custom';
export type PaymentKind = PlanType | typeof CUSTOM_REQUEST_PAYMENT;
/** How a payment's purpose reads in mails and admin views. */
export const paymentKindLabel = (site: SiteConfig, kind: PaymentKind) =>
  kind === CUSTOM_REQUEST_PAYMENT ? 'a custom video request' : planOf(site, kind).name;

/** A plan as the API answers it (the shared `planSchema`). */
export type Plan = z.infer<typeof planSchema>;

function satsOf(btc: string, field: string): number {
  const sats = parseBtc(btc);
  if (sats === undefined) throw new Error(`site config ${field} is not a BTC amount: ${btc}`);
  return sats;
}

export function planOf(site: SiteConfig, planType: PlanType): Plan {
  const p = site.plans[planType];
  const amountSats = satsOf(p.btcPrice, `plans.${planType}.btcPrice`);
  const former = p.formerBtcPrice ? satsOf(p.formerBtcPrice, `plans.${planType}.formerBtcPrice`) : undefined;
  return {
    id: planType,
    planType,
    name: p.name,
    interval: planType === 'monthly' ? 'month' : 'year',
    btcAmount: satsToBtc(amountSats),
    amountSats,
    usdPrice: p.usdPrice,
    ...(former !== undefined ? { formerBtcAmount: satsToBtc(former), formerAmountSats: former } : {}),
    ...(p.formerUsdPrice !== undefined ? { formerUsdPrice: p.formerUsdPrice } : {}),
    ...(p.savingsText ? { savingsText: p.savingsText } : {}),
    mostPopular: p.mostPopular,
    features: p.features,
  };
}

export function allPlans(site: SiteConfig): Plan[] {
  return PLAN_TYPES.map((t) => planOf(site, t));
}

/**
 * Adds calendar months in UTC, clamping to the month's last day (Jan 31 + 1 month = Feb 28/29).
 * @example addMonths('2026-01-31T10:00:00.000Z', 1) // '2026-02-28T10:00:00.000Z'
 */
export function addMonths(iso: string, months: number): string {
  const d = new Date(iso);
  const day = d.getUTCDate();
  const target = new Date(d.getTime());
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target.toISOString();
}

/** The end of one billing period of `planType` starting at `startIso`. */
export function periodEnd(startIso: string, planType: PlanType): string {
  return addMonths(startIso, planType === 'monthly' ? 1 : 12);
}

export function addDays(iso: string, days: number): string {
  return new Date(new Date(iso).getTime() + days * 86_400_000).toISOString();
}

export const planLabel = (planType: PlanType): string => (planType === 'monthly' ? 'Monthly' : 'Annual');
