/**
 * A real regtest Bitcoin node for the chain suites: bcoin (a full node in JavaScript speaking
 * Bitcoin Core's JSON-RPC) in a child process on a free loopback port, with 130 blocks mined to its
 * wallet so it can pay. The suites prove the interface against bcoin, not against Bitcoin Core.
 * @example const node = await startBcoinNode(); await node.pay(script, 50_000); await node.mine(1);
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Address } from '@scure/btc-signer';
import { outputScriptOf, REGTEST_NETWORK } from '../../src/billing/bitcoinAddress.js';

/** A regtest P2WPKH address nobody holds a key to (20 random bytes), and its output script (hex). */
export function freshRegtestAddress(): { address: string; script: string } {
  const address = Address(REGTEST_NETWORK).encode({ type: 'wpkh', hash: randomBytes(20) });
  return { address, script: outputScriptOf(address, 'regtest') as string };
}

export interface BcoinNode {
  /** BITCOIN_RPC_URL for the server under test. */
  rpcUrl: string;
  /** Mines `n` blocks (to `script` hex, default the node's wallet); answers their hashes. */
  mine(n: number, script?: string): Promise<string[]>;
  /** The wallet pays `sats` to the output script; answers the txid. `rbf`: signals BIP125. */
  pay(script: string, sats: number, opts?: { rbf?: boolean }): Promise<string>;
  /** `invalidateblock`: the block and its descendants leave the best chain (their transactions go back to the mempool). */
  invalidate(blockHash: string): Promise<number>;
  stop(): Promise<void>;
}

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bcoinNode.child.cjs');

export async function startBcoinNode(): Promise<BcoinNode> {
  const child: ChildProcess = fork(CHILD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let seq = 0;
  const ready = new Promise<{ port: number; apiKey: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bcoin node exited with ${code} before it was ready`)));
    child.on('message', (msg: { ready?: boolean; port: number; apiKey: string; id?: number; result?: unknown; error?: string }) => {
      if (msg.ready) return resolve(msg);
      const w = msg.id === undefined ? undefined : waiting.get(msg.id);
      if (!w) return;
      waiting.delete(msg.id as number);
      if (msg.error) w.reject(new Error(msg.error));
      else w.resolve(msg.result);
    });
  });
  const { port, apiKey } = await ready;
  const ask = <T>(op: string, args: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) => {
      seq += 1;
      waiting.set(seq, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id: seq, op, ...args });
    });
  return {
    rpcUrl: `http://x:${apiKey}@127.0.0.1:${port}/`,
    mine: (n, script) => ask<string[]>('mine', { n, script }),
    pay: (script, sats, opts = {}) => ask<string>('pay', { script, sats, rbf: Boolean(opts.rbf) }),
    invalidate: (hash) => ask<number>('invalidate', { hash }),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      await ask('stop').catch(() => child.kill('SIGKILL'));
      await exited;
    },
  };
}
