/**
 * A bcoin regtest full node for the chain suites, run in a child process of its own (its pure-JS
 * crypto is CPU-heavy; a vitest worker stays free). Started by `bcoinNode.testkit.ts` through
 * `fork`: it answers JSON-RPC on a free loopback port (Basic auth, password = the API key) and takes
 * its test commands (mine, pay, invalidate) over the IPC channel. bcoin is a second implementation
 * of Bitcoin Core's RPC, not Core itself.
 */
'use strict';
const Module = require('node:module');
const path = require('node:path');

// bdb requires the LevelDB binding at load even in memory mode, which never calls it; the package
// is installed without its build script, so the binding is a stub that throws if ever used.
const stub = path.join(__dirname, 'leveldown.stub.cjs');
const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveLeveldown(request, ...rest) {
  return request === 'leveldown' ? stub : resolve.call(this, request, ...rest);
};
process.env.NODE_BACKEND = 'js';
const bcoin = require('bcoin');

const apiKey = process.env.BCOIN_API_KEY || 'test-api-key';

async function main() {
  const node = new bcoin.FullNode({
    network: 'regtest',
    memory: true,
    workers: false,
    listen: false,
    indexTX: true,
    httpHost: '127.0.0.1',
    httpPort: 0,
    // The wallet plugin's own HTTP server: a free port too (its default would clash between suites).
    walletHttpHost: '127.0.0.1',
    walletHttpPort: 0,
    apiKey,
    logLevel: 'none',
  });
  node.use(bcoin.wallet.plugin);
  await node.open();
  const wdb = node.require('walletdb').wdb;
  const wallet = await wdb.get('primary');
  const walletAddress = await wallet.receiveAddress();

  /** The miner refuses to build on a chain tip its mempool has not caught up with (after a block, a reset). */
  async function settled() {
    while (node.mempool.tip !== node.chain.tip.hash || wdb.state.height < node.chain.height) await new Promise((r) => setTimeout(r, 10));
  }

  async function mine(n, scriptHex) {
    const to = scriptHex ? bcoin.Address.fromScript(bcoin.Script.fromRaw(Buffer.from(scriptHex, 'hex'))) : walletAddress;
    const hashes = [];
    for (let i = 0; i < n; i++) {
      await settled();
      const block = await node.miner.mineBlock(node.chain.tip, to);
      await node.chain.add(block);
      hashes.push(block.rhash());
    }
    await settled();
    return hashes;
  }

  async function pay(scriptHex, sats, rbf) {
    await settled();
    // Confirmed coins only: a change output of a transaction a reorg removed would make an orphan.
    const mtx = await wallet.createTX({
      depth: 1,
      outputs: [{ script: bcoin.Script.fromRaw(Buffer.from(scriptHex, 'hex')), value: sats }],
    });
    // BIP125: a sequence below 0xfffffffe signals the sender may replace it.
    for (const input of mtx.inputs) input.sequence = rbf ? 0xfffffffd : 0xffffffff;
    await wallet.sign(mtx);
    const tx = mtx.toTX();
    await wdb.addTX(tx);
    await node.sendTX(tx);
    return tx.txid();
  }

  async function invalidate(blockHash) {
    await node.rpc.execute({ method: 'invalidateblock', params: [blockHash] });
    // bcoin's pool throws "not connected" on the chain's reset (no peers here) before the mempool
    // hears of it: reset the mempool as the node would (its transactions are dropped).
    if (node.mempool.tip !== node.chain.tip.hash) await node.mempool.reset();
    await settled();
    return node.chain.height;
  }

  // 130 blocks: 31 mature coinbase coins to pay from, one more with every block mined.
  await mine(130);
  // The test process went away without stopping the node: go too.
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (msg) => {
    try {
      let result;
      if (msg.op === 'mine') result = await mine(msg.n, msg.script);
      else if (msg.op === 'pay') result = await pay(msg.script, msg.sats, msg.rbf);
      else if (msg.op === 'invalidate') result = await invalidate(msg.hash);
      else if (msg.op === 'stop') {
        await node.close();
        process.send({ id: msg.id, result: true }, () => process.exit(0));
        return;
      } else throw new Error(`unknown op ${msg.op}`);
      process.send({ id: msg.id, result });
    } catch (err) {
      process.send({ id: msg.id, error: String(err?.stack ?? err) });
    }
  });
  process.send({ ready: true, port: node.http.http.address().port, apiKey });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
