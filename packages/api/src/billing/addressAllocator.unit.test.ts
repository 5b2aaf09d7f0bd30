import { describe, expect, it } from 'vitest';
import { type AddressAllocated, addressAllocatorDecider } from './addressAllocator.js';

const allocated = (index: number): AddressAllocated => ({
  type: 'AddressAllocated',
  data: { index, address: `addr-${index}`, paymentId: `p${index}` },
});
const stateOf = (events: AddressAllocated[]) =>
  events.reduce((s, e) => addressAllocatorDecider.evolve(s, e), addressAllocatorDecider.initialState());
const derive = (i: number) => `addr-${i}`;

describe('address allocator decider', () => {
  it('hands out index 0 first', () => {
    expect(addressAllocatorDecider.decide({ paymentId: 'p0', derive }, stateOf([]))).toEqual({ ok: true, events: [allocated(0)] });
  });

  it('hands out the next index after every allocation, never a used one', () => {
    const r = addressAllocatorDecider.decide({ paymentId: 'p3', derive }, stateOf([allocated(0), allocated(1), allocated(2)]));
    expect(r).toEqual({ ok: true, events: [allocated(3)] });
  });

  it('never goes back, whatever order the history holds', () => {
    expect(stateOf([allocated(5), allocated(2)]).nextIndex).toBe(6);
  });
});
