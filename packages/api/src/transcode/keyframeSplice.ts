/**
 * Variant B of a marked segment as variant A with B's keyframe (FORENSIC_WATERMARK,
 * docs/leak-tracing.md), pure, on the MPEG-TS bytes ffmpeg's HLS muxer writes.
 *
 * Why: A and B are two encodes of inputs that differ by the mark (±1.5 levels). On grainy footage
 * the encoder quantizes the grain of the two differently, and the difference grows with every
 * predicted frame of a segment (measured on the corpus's heavy grain: 4.8 of mean squared error at
 * the keyframe, 55 at its last frame) until the two members' streams are 35 dB apart, far more
 * than the mark itself. A segment's frames after its keyframe are predicted from the keyframe, so
 * B's keyframe followed by **A's** predicted frames decodes to A's pictures with B's keyframe's
 * difference carried forward by the motion: the mark B draws (decaying where the encoder codes
 * blocks afresh), without the second encode's drift. The same footage's streams are then 45 dB apart.
 *
 * The segment must start with an IDR access unit (the ladder forces one at every segment) and both
 * encodes must share their parameter sets (the same command writes them); anything else throws,
 * since a B that could not be decoded is worse than none.
 */

const PACKET = 188;
const SYNC = 0x47;
const STREAM_ID_VIDEO = 0xe0;
const NAL_IDR = 5;
const NAL_SPS = 7;
const NAL_PPS = 8;

interface Packet {
  /** Offset of the packet in its buffer. */
  at: number;
  pid: number;
  start: boolean;
  /** Offset of the payload in the buffer (= at + PACKET when there is none). */
  payload: number;
}

function packets(ts: Buffer): Packet[] {
  if (ts.length % PACKET !== 0) throw new Error(`not an MPEG-TS segment (${ts.length} bytes is not a whole number of packets)`);
  const out: Packet[] = [];
  for (let at = 0; at < ts.length; at += PACKET) {
    if (ts[at] !== SYNC) throw new Error(`not an MPEG-TS segment (no sync byte at ${at})`);
    const b1 = ts[at + 1] as number;
    const b3 = ts[at + 3] as number;
    const control = (b3 >> 4) & 3;
    const adaptation = control & 2 ? 1 + (ts[at + 4] as number) : 0;
    out.push({
      at,
      pid: ((b1 & 0x1f) << 8) | (ts[at + 2] as number),
      start: (b1 & 0x40) !== 0,
      payload: control & 1 ? at + 4 + adaptation : at + PACKET,
    });
  }
  return out;
}

/** The video PES that starts the segment: its packets (in order) and its bytes. */
function firstVideoPes(ts: Buffer) {
  const all = packets(ts);
  const first = all.findIndex(
    (p) => p.start && ts[p.payload] === 0 && ts[p.payload + 1] === 0 && ts[p.payload + 2] === 1 && ts[p.payload + 3] === STREAM_ID_VIDEO,
  );
  if (first < 0) throw new Error('the segment holds no video');
  const pid = (all[first] as Packet).pid;
  const own: Packet[] = [];
  for (let k = first; k < all.length; k++) {
    const p = all[k] as Packet;
    if (p.pid !== pid) continue;
    if (p.start && own.length > 0) break;
    own.push(p);
  }
  const pes = Buffer.concat(own.map((p) => ts.subarray(p.payload, p.at + PACKET)));
  return { all, pid, own, pes };
}

interface Nal {
  type: number;
  /** Offset of its start code, and the end of its bytes, in the elementary stream. */
  from: number;
  to: number;
}

/** The NAL units of an H.264 byte stream (Annex B). */
function nalUnits(es: Buffer): Nal[] {
  const starts: number[] = [];
  for (let i = 0; i + 2 < es.length; i++)
    if (es[i] === 0 && es[i + 1] === 0 && es[i + 2] === 1) {
      starts.push(i > 0 && es[i - 1] === 0 ? i - 1 : i);
      i += 2;
    }
  return starts.map((from, k) => {
    let to = starts[k + 1] ?? es.length;
    // A NAL unit never ends in a zero byte: zeros before the next start code are padding.
    while (to > from && es[to - 1] === 0) to--;
    const header = es[from + (es[from + 2] === 1 ? 3 : 4)] as number;
    return { type: header & 0x1f, from, to };
  });
}

/** The PES header's length, and its PTS (33 bits, as a number), of a PES starting at 0. */
function pesHeader(pes: Buffer): { length: number; pts: number | null } {
  const length = 9 + (pes[8] as number);
  if (!((pes[7] as number) & 0x80)) return { length, pts: null };
  const b = (i: number) => pes[9 + i] as number;
  const pts = ((b(0) >> 1) & 7) * 2 ** 30 + ((b(1) << 7) | (b(2) >> 1)) * 2 ** 15 + ((b(3) << 7) | (b(4) >> 1));
  return { length, pts };
}

/** The run of IDR slices of an access unit, and its parameter sets' bytes. */
function keyframeParts(es: Buffer) {
  const nals = nalUnits(es);
  const idr = nals.filter((n) => n.type === NAL_IDR);
  if (idr.length === 0) throw new Error("the segment's first frame is not an IDR keyframe");
  const from = (idr[0] as Nal).from;
  const to = (idr[idr.length - 1] as Nal).to;
  if (nals.some((n) => n.from > from && n.to < to && n.type !== NAL_IDR)) throw new Error("the keyframe's slices are not contiguous");
  const sets = nals
    .filter((n) => n.type === NAL_SPS || n.type === NAL_PPS)
    .map((n) => es.subarray(n.from, n.to).toString('hex').replace(/^0*1/, ''))
    .join(',');
  return { from, to, sets };
}

/**
 * Packs a PES into TS packets of `pid`: the first keeps `firstHeader`'s adaptation field (its PCR
 * and random-access flag), later ones take the PCR the original's packet at the same place held,
 * the last is filled out with adaptation-field stuffing. Continuity counters are set by the caller.
 */
function packetize(pes: Buffer, pid: number, adaptationOf: (k: number) => Buffer | null): Buffer[] {
  const out: Buffer[] = [];
  let offset = 0;
  for (let k = 0; offset < pes.length; k++) {
    let adaptation = adaptationOf(k);
    let room = PACKET - 4 - (adaptation ? adaptation.length : 0);
    const left = pes.length - offset;
    if (left < room) {
      const stuffing = room - left;
      adaptation = adaptation
        ? Buffer.concat([Buffer.from([(adaptation[0] as number) + stuffing]), adaptation.subarray(1), Buffer.alloc(stuffing, 0xff)])
        : stuffing === 1
          ? Buffer.from([0])
          : Buffer.concat([Buffer.from([stuffing - 1, 0]), Buffer.alloc(stuffing - 2, 0xff)]);
      room = left;
    }
    const head = Buffer.from([SYNC, (k === 0 ? 0x40 : 0) | ((pid >> 8) & 0x1f), pid & 0xff, (adaptation ? 0x30 : 0x10) | 0]);
    out.push(Buffer.concat([head, adaptation ?? Buffer.alloc(0), pes.subarray(offset, offset + room)]));
    offset += room;
  }
  return out;
}

/** A packet's adaptation field (length byte included), or null. */
function adaptationField(ts: Buffer, p: Packet): Buffer | null {
  const control = ((ts[p.at + 3] as number) >> 4) & 3;
  return control & 2 ? ts.subarray(p.at + 4, p.at + 5 + (ts[p.at + 4] as number)) : null;
}

/** Only the PCR of an adaptation field (dropping its stuffing), or null when it carries none. */
function pcrOnly(field: Buffer | null): Buffer | null {
  if (!field || field.length < 8 || !((field[1] as number) & 0x10)) return null;
  return Buffer.concat([Buffer.from([7, (field[1] as number) & 0x10]), field.subarray(2, 8)]);
}

/** An adaptation field without its stuffing (flags and PCR), when it holds nothing else; else as it is. */
function withoutStuffing(field: Buffer | null): Buffer | null {
  if (!field || field.length < 2) return field;
  const flags = field[1] as number;
  if (flags & 0x0f) return field;
  const pcr = flags & 0x10 ? field.subarray(2, 8) : Buffer.alloc(0);
  return Buffer.concat([Buffer.from([1 + pcr.length, flags]), pcr]);
}

/**
 * Segment A with its keyframe's picture taken from segment B (the same frame of the other encode).
 * Every other byte of A is kept but the video packets' continuity counters, renumbered after the
 * keyframe's packets changed in number.
 * @throws when either is not a segment starting with an IDR frame, their first frames differ in
 * time, or their encodes' parameter sets differ.
 */
export function spliceKeyframe(a: Buffer, b: Buffer): Buffer {
  const ka = firstVideoPes(a);
  const kb = firstVideoPes(b);
  const ha = pesHeader(ka.pes);
  const hb = pesHeader(kb.pes);
  const esA = ka.pes.subarray(ha.length);
  const esB = kb.pes.subarray(hb.length);
  const pa = keyframeParts(esA);
  const pb = keyframeParts(esB);
  if (pa.sets !== pb.sets) throw new Error("the variants' encodes differ in their parameter sets");
  if (ha.pts !== hb.pts) throw new Error(`the variants' first frames differ in time (PTS ${ha.pts} and ${hb.pts})`);
  const header = Buffer.from(ka.pes.subarray(0, ha.length));
  const es = Buffer.concat([esA.subarray(0, pa.from), esB.subarray(pb.from, pb.to), esA.subarray(pa.to)]);
  const declared = header.readUInt16BE(4);
  if (declared !== 0) {
    const length = header.length - 6 + es.length;
    header.writeUInt16BE(length <= 0xffff ? length : 0, 4);
  }
  const replaced = packetize(Buffer.concat([header, es]), ka.pid, (k) => {
    const original = ka.own[k];
    if (!original) return null;
    const field = adaptationField(a, original);
    return k === 0 ? withoutStuffing(field) : pcrOnly(field);
  });

  const firstAt = (ka.own[0] as Packet).at;
  const dropped = new Set(ka.own.map((p) => p.at));
  const out: Buffer[] = [];
  for (const p of ka.all) {
    if (p.at === firstAt) out.push(...replaced);
    else if (!dropped.has(p.at)) out.push(Buffer.from(a.subarray(p.at, p.at + PACKET)));
  }
  // Continuity counters of the video packets, in order, from the first one's.
  let counter = (a[firstAt + 3] as number) & 0x0f;
  let seen = false;
  for (const packet of out) {
    const pid = (((packet[1] as number) & 0x1f) << 8) | (packet[2] as number);
    if (pid !== ka.pid) continue;
    const hasPayload = ((packet[3] as number) >> 4) & 1;
    if (seen && hasPayload) counter = (counter + 1) & 0x0f;
    seen = true;
    packet[3] = ((packet[3] as number) & 0xf0) | counter;
  }
  return Buffer.concat(out);
}
