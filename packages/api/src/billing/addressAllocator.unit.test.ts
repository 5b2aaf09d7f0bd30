import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../shared/decider.testkit.js';
import { type AddressAllocated, addressAllocatorDecider } from './addressAllocator.js';

const allocated = (index: number): AddressAllocated => ({
  type: 'AddressAllocated',
  data: { index, address: `addr-${index}`, paymentId: `p${index}` },
});
const { given, stateOf } = deciderSpec(addressAllocatorDecider);
const derive = (i: number) => `addr-${i}`;

describe('address allocator decider', () => {
  it('hands out index 0 first', () => {
    expect(given([]).when({ paymentId: 'p0', derive })).toEqual({ ok: true, events: [allocated(0)] });
  });

  it('hands out the next index after every allocation, never a used one', () => {
    const r = given([allocated(0), allocated(1), allocated(2)]).when({ paymentId: 'p3', derive });
    expect(r).toEqual({ ok: true, events: [allocated(3)] });
  });

  it('never goes back, whatever order the history holds', () => {
    expect(stateOf([allocated(5), allocated(2)]).nextIndex).toBe(6);
  });
});
