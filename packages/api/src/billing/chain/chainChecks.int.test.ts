/**
 * Payments checked against a real regtest node (bcoin, in a child process: it speaks Bitcoin Core's
 * JSON-RPC but is not Core), on SQLite and PostgreSQL: what the pending list's `chain` says, what
 * verify refuses without an override, payments nobody submitted, a reorg, autoVerify.
 */
import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type BcoinNode, freshRegtestAddress, startBcoinNode } from '../../../test/bitcoin/bcoinNode.testkit.js';
import { forEachStore, type StoreKind, startTestServer, type TestServer } from '../../../test/harness.js';
import { auditBitcoinCheck } from '../../cli/auditBitcoinCheck.js';
import { mailsTo } from '../../mail/outbox.testkit.js';
import { billingTestKit, seedMember } from '../billing.testkit.js';
import { outputScriptOf } from '../bitcoinAddress.js';

const ANNUAL_SATS = 500_000;

const freshAddress = freshRegtestAddress;

/** A BIP84 account key of a fresh wallet, testnet versions (tpub), which regtest uses. */
function freshTpub(): string {
  const versions = { private: 0x04358394, public: 0x043587cf };
  return HDKey.fromMasterSeed(randomBytes(32), versions).derive("m/84'/1'/0'").publicExtendedKey;
}

function siteBitcoin(extra: Record<string, unknown>) {
  return {
    network: 'regtest' as const,
    explorerTxUrl: 'https://explorer.example/tx/{txid}',
    paymentRequestTtlHours: 24,
    confirmations: 1,
    autoVerify: false,
    underpaymentTolerancePercent: 0,
    ...extra,
  };
}

/** Polls until `check` answers something truthy: the watcher records on its own schedule. */
async function until<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** For the tests of the block: a server following the node (every 0.2 s) with these Bitcoin settings, and its kit. */
function serverOnNode(kind: StoreKind, bitcoin: Record<string, unknown>, ready: (server: TestServer, kit: Kit) => void) {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      site: { bitcoin: siteBitcoin(bitcoin) },
      env: { BITCOIN_RPC_URL: node.rpcUrl, BITCOIN_POLL_SECONDS: '0.2' },
    });
    ready(server, await billingTestKit(server));
  });
  afterAll(async () => server?.close());
}

let node: BcoinNode;
beforeAll(async () => {
  node = await startBcoinNode();
});
afterAll(async () => node?.stop());

type Kit = Awaited<ReturnType<typeof billingTestKit>>;
type Pending = {
  id: string;
  transactionHash?: string;
  chain: {
    status: string;
    txid: string | null;
    receivedSats: number;
    confirmations: number;
    blockHash: string | null;
    blockHeight: number | null;
  };
};

async function chainOf(kit: Kit, paymentId: string, status: string | string[]): Promise<Pending> {
  const wanted = ([] as string[]).concat(status);
  return until(async () => {
    const list = (await kit.pending()).body.data as { payments: Pending[]; flagged: Pending[] };
    const p = [...list.payments, ...list.flagged].find((x) => x.id === paymentId);
    return p && wanted.includes(p.chain.status) ? p : undefined;
  });
}

forEachStore('billing: payments checked on a regtest node, one fixed address', (kind) => {
  let server: TestServer;
  let kit: Kit;
  const site = freshAddress();
  serverOnNode(kind, { address: site.address }, (s, k) => {
    server = s;
    kit = k;
  });

  it('an exact payment submitted with its hash is unconfirmed in the mempool, confirmed after a block; verifying keeps the evidence', async () => {
    const m = await seedMember(server);
    const txid = await node.pay(site.script, ANNUAL_SATS);
    const paymentId = (await kit.submit(m, { transactionHash: txid })).body.data.paymentId;
    const waiting = await chainOf(kit, paymentId, 'unconfirmed');
    expect(waiting.chain).toMatchObject({ txid, receivedSats: ANNUAL_SATS, confirmations: 0, blockHash: null });
    expect((await kit.verify(paymentId)).body).toMatchObject({ success: false, code: 'payment.chain_unconfirmed' });
    const [block] = await node.mine(1);
    const confirmed = await chainOf(kit, paymentId, 'confirmed');
    expect(confirmed.chain).toMatchObject({ txid, receivedSats: ANNUAL_SATS, confirmations: 1, blockHash: block });
    expect((await kit.verify(paymentId)).status).toBe(200);
    const verified = (await server.ctx.store.readStream(`payment-${paymentId}`)).find((e) => e.type === 'PaymentVerified');
    expect(verified?.data).toMatchObject({
      evidence: { txid, outputIndex: expect.any(Number), receivedSats: ANNUAL_SATS, blockHash: block, confirmations: 1 },
    });
    expect(verified?.data).not.toHaveProperty('override');

    // The block leaves the chain: the verified payment is flagged (never revoked) and the admin is mailed.
    await node.invalidate(block as string);
    const left = await chainOf(kit, paymentId, ['conflicted', 'unconfirmed']);
    const answer = (await kit.pending()).body.data as { flagged: (Pending & { flaggedAt?: string })[] };
    expect(answer.flagged.find((p) => p.id === paymentId)).toMatchObject({
      flaggedAt: expect.any(String),
      chain: { status: left.chain.status },
    });
    expect((await kit.subscription(m)).body.data).toMatchObject({ status: 'active' });
    const mails = await until(async () => {
      const all = await mailsTo(server, 'admin@example.test');
      return all.some((x) => /left the chain/.test(String((x as { subject?: string }).subject))) && all;
    });
    expect(mails.length).toBeGreaterThan(0);
    await node.mine(1); // a new best chain for the next tests
  });

  it('a made-up hash is not_found; a transaction paying another address is wrong_address', async () => {
    const m = await seedMember(server);
    const madeUp = randomBytes(32).toString('hex');
    const a = (await kit.submit(m, { transactionHash: madeUp })).body.data.paymentId;
    await chainOf(kit, a, 'not_found');
    expect(await kit.verify(a)).toMatchObject({ status: 409, body: { code: 'payment.chain_not_found' } });

    const other = await seedMember(server);
    const elsewhere = await node.pay(freshAddress().script, ANNUAL_SATS);
    const b = (await kit.submit(other, { transactionHash: elsewhere })).body.data.paymentId;
    expect((await chainOf(kit, b, 'wrong_address')).chain).toMatchObject({ txid: elsewhere, receivedSats: 0 });
    expect(await kit.verify(b)).toMatchObject({ status: 409, body: { code: 'payment.chain_wrong_address' } });
  });

  it('an underpayment is underpaid: verify answers 409 without an override, 200 with one, and the event keeps the reason', async () => {
    const m = await seedMember(server);
    const txid = await node.pay(site.script, ANNUAL_SATS - 1);
    const paymentId = (await kit.submit(m, { transactionHash: txid })).body.data.paymentId;
    await node.mine(1);
    expect((await chainOf(kit, paymentId, 'underpaid')).chain).toMatchObject({ receivedSats: ANNUAL_SATS - 1, confirmations: 1 });
    expect(await kit.verify(paymentId)).toMatchObject({ status: 409, body: { success: false, code: 'payment.chain_underpaid' } });
    const blank = await kit.api.post(`/admin/payments/${paymentId}/verify`, { override: { reason: '  ' } }, kit.admin);
    expect(blank.status).toBe(400);
    const reason = 'The member paid the missing satoshi by another route';
    const overridden = await kit.api.post(`/admin/payments/${paymentId}/verify`, { override: { reason } }, kit.admin);
    expect(overridden.status).toBe(200);
    const verified = (await server.ctx.store.readStream(`payment-${paymentId}`)).find((e) => e.type === 'PaymentVerified');
    expect(verified?.data).toMatchObject({
      override: { reason, chainStatus: 'underpaid' },
      evidence: { txid, receivedSats: ANNUAL_SATS - 1 },
    });
  });
});

forEachStore('billing: payments nobody submitted, autoVerify (xpub on regtest)', (kind) => {
  let server: TestServer;
  let kit: Kit;
  serverOnNode(kind, { xpub: freshTpub(), autoVerify: true }, (s, k) => {
    server = s;
    kit = k;
  });

  it('a paid request nobody submitted shows in the pending list with the chain’s hash; once confirmed it is verified by the chain', async () => {
    const m = await seedMember(server);
    const intent = (await kit.api.post('/payments/create-subscription-intent', { planType: 'annual' }, m.token)).body.data;
    expect(intent.address).toMatch(/^bcrt1/);
    const script = outputScriptOf(intent.address, 'regtest') as string;
    const txid = await node.pay(script, ANNUAL_SATS);
    const seen = await chainOf(kit, intent.paymentId, 'unconfirmed');
    expect(seen).toMatchObject({ transactionHash: txid, chain: { txid, receivedSats: ANNUAL_SATS } });
    // The member's own page says the network received it, before anyone verified (and only to them).
    expect((await kit.api.get('/payments/pending', m.token)).body.data.payments).toEqual([
      expect.objectContaining({
        paymentId: intent.paymentId,
        transactionHash: txid,
        received: { btcAmount: '0.005', confirmations: 0, status: 'unconfirmed' },
      }),
    ]);
    expect((await kit.api.get('/payments/pending', (await seedMember(server)).token)).body.data.payments).toEqual([]);
    await node.mine(1);
    const sub = await until(async () => {
      const s = (await kit.subscription(m)).body.data;
      return s?.status === 'active' && s;
    });
    expect(sub).toMatchObject({ planType: 'annual', status: 'active' });
    const events = await server.ctx.store.readStream(`payment-${intent.paymentId}`);
    const verified = events.find((e) => e.type === 'PaymentVerified');
    expect(verified?.data).toMatchObject({ verifiedBy: 'bitcoin-chain', evidence: { txid, confirmations: 1 } });
    expect(verified?.metadata).toMatchObject({ actorId: null, actor: 'bitcoin-chain' });
    const mails = await mailsTo(server, m.email);
    expect(mails.some((x) => /subscription is active/.test(String((x as { subject?: string }).subject)))).toBe(true);
  });
});

forEachStore('billing: a replaceable transaction is never final unconfirmed (confirmations: 0)', (kind) => {
  let server: TestServer;
  let kit: Kit;
  const site = freshAddress();
  serverOnNode(kind, { address: site.address, confirmations: 0 }, (s, k) => {
    server = s;
    kit = k;
  });

  it('with 0 confirmations a final mempool transaction is confirmed, an RBF one unconfirmed until it is mined', async () => {
    const [a, b] = [await seedMember(server), await seedMember(server)];
    const plain = await node.pay(site.script, ANNUAL_SATS);
    const rbf = await node.pay(site.script, ANNUAL_SATS, { rbf: true });
    const pa = (await kit.submit(a, { transactionHash: plain })).body.data.paymentId;
    const pb = (await kit.submit(b, { transactionHash: rbf })).body.data.paymentId;
    expect((await chainOf(kit, pa, 'confirmed')).chain.confirmations).toBe(0);
    expect((await chainOf(kit, pb, 'unconfirmed')).chain.confirmations).toBe(0);
    await node.mine(1);
    expect((await chainOf(kit, pb, 'confirmed')).chain.confirmations).toBe(1);
  });
});

forEachStore('audit bitcoin-check against the node', (kind) => {
  let server: TestServer;
  let kit: Kit;
  const site = freshAddress();
  serverOnNode(kind, { address: site.address }, (s, k) => {
    server = s;
    kit = k;
  });

  /** `pnpm cli audit bitcoin-check --node URL` over the server's store: exit code and printed lines. */
  async function bitcoinCheck(): Promise<{ code: number; lines: string[] }> {
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      const code = await auditBitcoinCheck.run({ env: server.ctx.env, site: server.ctx.site, args: ['--node', node.rpcUrl] });
      return { code, lines };
    } finally {
      log.mockRestore();
    }
  }

  it('holds for verified payments (an override named), then fails naming the payment whose block left the chain', async () => {
    const [a, b, c] = [await seedMember(server), await seedMember(server), await seedMember(server)];
    const exact = await node.pay(site.script, ANNUAL_SATS);
    const short = await node.pay(site.script, ANNUAL_SATS - 10);
    const pa = (await kit.submit(a, { transactionHash: exact })).body.data.paymentId;
    const pb = (await kit.submit(b, { transactionHash: short })).body.data.paymentId;
    const [block] = await node.mine(1);
    await chainOf(kit, pa, 'confirmed');
    await chainOf(kit, pb, 'underpaid');
    expect((await kit.verify(pa)).status).toBe(200);
    const reason = 'Ten sats short: the member paid the fee from the amount';
    expect((await kit.api.post(`/admin/payments/${pb}/verify`, { override: { reason } }, kit.admin)).status).toBe(200);
    // A payment verified without evidence (a made-up hash, overridden) is counted, not judged.
    const pc = (await kit.submit(c, { transactionHash: randomBytes(32).toString('hex') })).body.data.paymentId;
    await chainOf(kit, pc, 'not_found');
    expect((await kit.api.post(`/admin/payments/${pc}/verify`, { override: { reason: 'paid in person' } }, kit.admin)).status).toBe(200);

    const holding = await bitcoinCheck();
    expect(holding.code).toBe(0);
    expect(holding.lines.find((l) => l.includes(pa))).toMatch(new RegExp(`^ok .*block \\d+ ${block}, pays ${ANNUAL_SATS} sats`));
    expect(holding.lines.find((l) => l.includes(pb))).toMatch(/^ok .*overridden: Ten sats short/);
    expect(holding.lines.some((l) => l.startsWith('not checked: 1') && l.includes(pc))).toBe(true);
    expect(holding.lines.at(-1)).toBe('2 verified payment(s) checked against the node: 2 hold, 0 do not');

    await node.invalidate(block as string);
    await node.mine(2); // a longer best chain without that block (its transactions are mined again elsewhere)
    const broken = await bitcoinCheck();
    expect(broken.code).toBe(1);
    expect(broken.lines.find((l) => l.includes(pa))).toMatch(new RegExp(`^FAILED .*block ${block} is not in the node's best chain`));
    expect(broken.lines.at(-1)).toBe('2 verified payment(s) checked against the node: 0 hold, 2 do not');
  });
});

describe('without a node', () => {
  it('every pending payment says unchecked and verify works as before', async () => {
    const server = await startTestServer('sqlite');
    try {
      const kit = await billingTestKit(server);
      const m = await seedMember(server);
      const paymentId = (await kit.submit(m, { transactionHash: randomBytes(32).toString('hex') })).body.data.paymentId;
      const p = (await kit.pending()).body.data.payments.find((x: Pending) => x.id === paymentId);
      expect(p.chain).toEqual({
        status: 'unchecked',
        txid: null,
        receivedSats: 0,
        confirmations: 0,
        blockHeight: null,
        blockHash: null,
        checkedAt: null,
      });
      expect((await kit.verify(paymentId)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
