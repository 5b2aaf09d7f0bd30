/**
 * The Bitcoin chain watcher's costs (docs/billing.md "Checking payments against the chain"):
 *
 *   - checking 1,000 open requests against a new block of 2,500 transactions (the follower reading
 *     the block and finding every request's payments: billing/chain/chainFollower.ts), against
 *     decoding and checking that block alone (rawBlock.ts) — the reference;
 *   - the time from a block being mined to the admin's pending list showing the payment it
 *     confirms, on the server as an operator runs it (a child process, the default
 *     BITCOIN_POLL_SECONDS of 5) following a real regtest node (bcoin, as in the suites; it speaks
 *     Bitcoin Core's RPC), against the poll interval — the reference.
 *
 *   npx tsx bench/bitcoin.ts [--txs 2500] [--requests 1000] [--rounds 5] [--quick|--smoke]
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChainSource } from '../packages/api/src/billing/chain/bitcoinRpc.js';
import { chainFollower } from '../packages/api/src/billing/chain/chainFollower.js';
import { decodeBlock, merkleRoot } from '../packages/api/src/billing/chain/rawBlock.js';
import { freshRegtestAddress, startBcoinNode } from '../packages/api/test/bitcoin/bcoinNode.testkit.js';
import { apiCall, BENCH_ADMIN, startBenchServer } from './lib/benchServer.mjs';
import { QUICK, report, SMOKE } from './lib/report.mjs';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
const TXS = Number(arg('txs', SMOKE ? '200' : '2500'));
const REQUESTS = Number(arg('requests', SMOKE ? '100' : '1000'));
const ROUNDS = Number(arg('rounds', SMOKE ? '1' : QUICK ? '3' : '5'));
const REPEAT = SMOKE ? 3 : 20;
const POLL_SECONDS = 5;

const sha256d = (b: Uint8Array) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
const varint = (n: number) => (n < 0xfd ? Buffer.from([n]) : Buffer.from([0xfd, n & 0xff, n >> 8]));
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

/** A legacy-format transaction spending a made-up outpoint to the given output scripts. */
function rawTx(scripts: string[]): Buffer {
  const outs = scripts.map((s) => Buffer.concat([u64(50_000), varint(s.length / 2), Buffer.from(s, 'hex')]));
  return Buffer.concat([u32(2), varint(1), randomBytes(32), u32(0), varint(0), u32(0xffffffff), varint(outs.length), ...outs, u32(0)]);
}

/** A block of `txs` transactions of two outputs each; `watched` scripts are paid once each, the rest random. */
function buildBlock(txs: number, watched: string[]): { bytes: Buffer; hash: string } {
  const body: Buffer[] = [];
  for (let i = 0; i < txs; i++) {
    const random = () => `0014${randomBytes(20).toString('hex')}`;
    body.push(rawTx([i < watched.length ? (watched[i] as string) : random(), random()]));
  }
  const root = merkleRoot(body.map((t) => sha256d(t)));
  const header = Buffer.concat([u32(0x20000000), Buffer.alloc(32), root, u32(1_800_000_000), u32(0x207fffff), u32(0)]);
  return { bytes: Buffer.concat([header, varint(body.length), ...body]), hash: Buffer.from(sha256d(header)).reverse().toString('hex') };
}

function ms(fn: () => void, n: number): number {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t) / 1e6 / n;
}

async function matching() {
  const watched = Array.from({ length: REQUESTS }, () => freshRegtestAddress().script);
  // One in ten requests paid in this block.
  const { bytes, hash } = buildBlock(TXS, watched.slice(0, Math.ceil(REQUESTS / 10)));
  const source: ChainSource = {
    tipHeight: async () => 0,
    blockHashAt: async () => hash,
    block: async () => decodeBlock(bytes, hash),
    prevHash: async () => '00'.repeat(32),
    transaction: async () => undefined,
    mempool: async () => [],
  };
  const interest = { scripts: new Set(watched), txids: new Set<string>() };
  let found = 0;
  const follow = async () => {
    const follower = chainFollower(source, 1);
    await follower.sync(interest);
    found = watched.reduce((n, s) => n + follower.paying(s).length, 0);
  };
  // Warm up both (the JIT), then alternate them so that load on the machine falls on both alike.
  decodeBlock(bytes, hash);
  await follow();
  const decodes: number[] = [];
  const follows: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    decodes.push(ms(() => decodeBlock(bytes, hash), 1));
    const t = process.hrtime.bigint();
    await follow();
    follows.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const decodeMs = median(decodes);
  const followMs = median(follows);
  if (found !== Math.ceil(REQUESTS / 10)) throw new Error(`the follower found ${found} payments, expected ${Math.ceil(REQUESTS / 10)}`);
  return { decodeMs, followMs, bytes: bytes.length };
}

async function blockToPendingList() {
  const node = await startBcoinNode();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bitcoin-'));
  const site = freshRegtestAddress();
  const config = JSON.parse(fs.readFileSync(path.resolve('site.config.example.json'), 'utf8'));
  config.bitcoin = { ...config.bitcoin, address: site.address, network: 'regtest', confirmations: 1 };
  const siteFile = path.join(dir, 'site.json');
  fs.writeFileSync(siteFile, JSON.stringify(config));
  const server = await startBenchServer(path.join(dir, 'data'), {
    SITE_CONFIG: siteFile,
    BITCOIN_RPC_URL: node.rpcUrl,
    BITCOIN_POLL_SECONDS: String(POLL_SECONDS),
  });
  try {
    const admin = (await apiCall(server.url, 'POST', '/auth/login', BENCH_ADMIN)).token as string;
    const latencies: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const email = `bench.payer.${round}.${Date.now()}@example.test`;
      const member = {
        email,
        password: 'bench-member-pass-1',
        firstName: 'Bench',
        lastName: 'Payer',
        dateOfBirth: '1990-01-01',
        agreeToTerms: true,
      };
      const registered = await apiCall(server.url, 'POST', '/auth/register', member);
      await apiCall(server.url, 'POST', `/admin/users/${registered.user.id}/approve`, {}, admin);
      const token = (await apiCall(server.url, 'POST', '/auth/login', { email, password: member.password })).token as string;
      const txid = await node.pay(site.script, 500_000);
      const submitted = await apiCall(
        server.url,
        'POST',
        '/payments/submit-bitcoin-payment',
        { userId: registered.user.id, planType: 'annual', btcAmount: '0.005', transactionHash: txid },
        token,
      );
      const paymentId = submitted.paymentId as string;
      // Mined at a random point of the poll cycle, as a real block is.
      await new Promise((r) => setTimeout(r, Math.random() * POLL_SECONDS * 1000));
      await node.mine(1);
      const t = Date.now();
      for (;;) {
        const list = await apiCall(server.url, 'GET', '/admin/pending-payments', undefined, admin);
        const p = (list.payments as { id: string; chain: { status: string } }[]).find((x) => x.id === paymentId);
        if (p?.chain.status === 'confirmed') break;
        if (Date.now() - t > 60_000) throw new Error('the payment was not shown confirmed within 60 s');
        await new Promise((r) => setTimeout(r, 50));
      }
      latencies.push(Date.now() - t);
      await apiCall(server.url, 'POST', `/admin/payments/${paymentId}/verify`, {}, admin);
    }
    return latencies.sort((a, b) => a - b);
  } finally {
    server.child.kill('SIGTERM');
    await node.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const m = await matching();
const latencies = await blockToPendingList();
const median = latencies[Math.floor(latencies.length / 2)] as number;
report({
  figure: `Check ${REQUESTS} open payment requests against a new block of ${TXS} transactions (${(m.bytes / 1e6).toFixed(2)} MB)`,
  ours: Number(m.followMs.toFixed(2)),
  unit: 'ms',
  reference: Number(m.decodeMs.toFixed(2)),
  referenceLabel: 'decoding and checking that block alone',
  target: 'report',
});
report({
  figure: `Block mined → the admin's pending list shows its payment confirmed (median of ${latencies.length})`,
  ours: Number((median / 1000).toFixed(2)),
  unit: 's',
  oursRange: [Number(((latencies[0] as number) / 1000).toFixed(2)), Number(((latencies.at(-1) as number) / 1000).toFixed(2))],
  reference: POLL_SECONDS,
  referenceLabel: 'the poll interval (BITCOIN_POLL_SECONDS)',
  target: 'within 10 s',
  pass: (latencies.at(-1) as number) <= 10_000,
});
