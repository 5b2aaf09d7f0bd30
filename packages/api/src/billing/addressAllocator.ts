/**
 * Fresh receiving addresses in xpub mode. Stream `address-allocator` counts the indexes handed out:
 * each `AddressAllocated { index, address, paymentId }` takes the next one, appended with the
 * stream's version as the expected version, so two concurrent requests can never get the same
 * index (the loser re-reads and takes the next). An index is never reused, even when the payment
 * request that asked for it then fails.
 */

import { aggregate } from '../eventstore/commandHandler.js';
import type { AppContext } from '../kernel/context.js';
import { accept, type Decider } from '../shared/decider.js';
import { eventMetadata } from '../shared/eventMetadata.js';
import { type BitcoinNetwork, deriveAddress, parseAccountKey } from './bitcoinAddress.js';

export const ADDRESS_ALLOCATOR_STREAM = 'address-allocator';

export interface AddressAllocated {
  type: 'AddressAllocated';
  data: { index: number; address: string; paymentId: string };
}

export interface AllocateAddress {
  paymentId: string;
  /** Pure derivation of the address at an index (the account key is public). */
  derive: (index: number) => string;
}

export const addressAllocatorDecider: Decider<AllocateAddress, AddressAllocated, { nextIndex: number }> = {
  initialState: () => ({ nextIndex: 0 }),
  decide: (command, state) =>
    accept<AddressAllocated>({
      type: 'AddressAllocated',
      data: { index: state.nextIndex, address: command.derive(state.nextIndex), paymentId: command.paymentId },
    }),
  evolve: (state, event) => ({ nextIndex: Math.max(state.nextIndex, event.data.index + 1) }),
};

/** One stream for every allocation: many payments race for the next index. */
const addressAllocator = aggregate(addressAllocatorDecider, (stream: typeof ADDRESS_ALLOCATOR_STREAM) => stream, { retries: 50 });

/** The receiving address for a new payment request: the fixed one, or the next derived one. */
export async function receivingAddressFor(
  ctx: AppContext,
  paymentId: string,
  actorId: string,
): Promise<{ address: string; addressIndex?: number }> {
  const btc = ctx.site.bitcoin;
  if (!btc.xpub) return { address: btc.address as string };
  const account = parseAccountKey(btc.xpub, btc.network as BitcoinNetwork);
  const derive = (index: number) => deriveAddress(account, btc.network as BitcoinNetwork, index);
  const result = await addressAllocator(ctx.store).handle(ADDRESS_ALLOCATOR_STREAM, { paymentId, derive }, eventMetadata(ctx, { actorId }));
  if (!result.ok) throw new Error(result.error.message);
  const { index, address } = (result.events[0] as AddressAllocated).data;
  return { address, addressIndex: index };
}
