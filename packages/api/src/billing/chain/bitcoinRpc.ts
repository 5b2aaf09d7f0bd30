/**
 * The chain source: a Bitcoin node's JSON-RPC (Bitcoin Core, or any node of the same interface),
 * asked only for raw, consensus-encoded data that `rawBlock.ts` decodes and checks — a block is the
 * one whose hash was asked for and its merkle root covers its transactions, a transaction hashes to
 * the id asked for. Nothing a node decodes for us (JSON fields differ between implementations and
 * versions) is believed.
 */
import fs from 'node:fs';
import { ChainDataError, type DecodedBlock, type DecodedTx, decodeBlock, decodeTx, parseHeader } from './rawBlock.js';

/** What the watcher reads from the chain; every answer is checked before it is returned. */
export interface ChainSource {
  tipHeight(): Promise<number>;
  blockHashAt(height: number): Promise<string>;
  block(hash: string): Promise<DecodedBlock>;
  /** The parent of a block (its header, checked to hash to `hash`). */
  prevHash(hash: string): Promise<string>;
  /** The transaction, or undefined when the node knows none with that id (not in the mempool, not indexed). */
  transaction(txid: string, blockHash?: string): Promise<DecodedTx | undefined>;
  /** The ids of the mempool's transactions. */
  mempool(): Promise<string[]>;
}

export class RpcError extends Error {
  constructor(
    message: string,
    readonly rpcCode?: number,
  ) {
    super(message);
  }
}

/** Bitcoin Core's "Invalid address or key" / "No such mempool or blockchain transaction". */
const RPC_INVALID_ADDRESS_OR_KEY = -5;
/** The generic error code, which bcoin answers for an unknown transaction. */
const RPC_MISC_ERROR = -1;

export interface RpcSettings {
  /** `http://user:pass@host:port` (the credentials may instead come from the cookie file). */
  url: string;
  /** Bitcoin Core's `.cookie` (`__cookie__:secret`), read at each call: the node rewrites it at every start. */
  cookieFile?: string | undefined;
}

function endpoint(settings: RpcSettings): { url: string; authorization?: string } {
  const url = new URL(settings.url);
  let credentials = url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined;
  url.username = '';
  url.password = '';
  if (settings.cookieFile) credentials = fs.readFileSync(settings.cookieFile, 'utf8').trim();
  return {
    url: url.toString(),
    ...(credentials ? { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } : {}),
  };
}

/**
 * A JSON-RPC 1.0 caller (one request per call, as every node implementation accepts).
 * @example await rpcCaller({ url: 'http://user:pass@127.0.0.1:8332' })('getblockcount')
 */
export function rpcCaller(settings: RpcSettings) {
  let id = 0;
  return async function rpc<T>(method: string, ...params: unknown[]): Promise<T> {
    const { url, authorization } = endpoint(settings);
    id += 1;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ jsonrpc: '1.0', id, method, params }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      throw new RpcError(`the Bitcoin node at ${url} does not answer: ${(err as Error).message}`);
    }
    if (res.status === 401 || res.status === 403) throw new RpcError(`the Bitcoin node refused the credentials (${res.status})`);
    const text = await res.text();
    let body: { result?: T; error?: { code: number; message: string } | null };
    try {
      body = JSON.parse(text);
    } catch {
      throw new RpcError(`the Bitcoin node answered ${method} with ${res.status} and no JSON`);
    }
    if (body.error) throw new RpcError(`${method}: ${body.error.message}`, body.error.code);
    return body.result as T;
  };
}

const HASH = /^[0-9a-f]{64}$/;
const hexBytes = (value: unknown, what: string): Uint8Array => {
  if (typeof value !== 'string' || !/^([0-9a-f]{2})+$/i.test(value)) throw new ChainDataError(`${what}: the node did not answer raw hex`);
  return Uint8Array.from(Buffer.from(value, 'hex'));
};
const hashOf = (value: unknown, what: string): string => {
  if (typeof value !== 'string' || !HASH.test(value)) throw new ChainDataError(`${what}: the node did not answer a hash`);
  return value;
};

/** The checked chain source over a node's JSON-RPC. */
export function rpcChainSource(settings: RpcSettings): ChainSource {
  const rpc = rpcCaller(settings);
  return {
    async tipHeight() {
      const height = await rpc<unknown>('getblockcount');
      if (!Number.isSafeInteger(height) || (height as number) < 0) throw new ChainDataError('getblockcount: not a height');
      return height as number;
    },
    async blockHashAt(height) {
      return hashOf(await rpc('getblockhash', height), 'getblockhash');
    },
    async block(hash) {
      return decodeBlock(hexBytes(await rpc('getblock', hash, 0), 'getblock'), hash);
    },
    async prevHash(hash) {
      const header = parseHeader(hexBytes(await rpc('getblockheader', hash, false), 'getblockheader'));
      if (header.hash !== hash) throw new ChainDataError(`getblockheader: the header hashes to ${header.hash}, not ${hash}`);
      return header.prevHash;
    },
    async transaction(txid, blockHash) {
      let raw: unknown;
      try {
        raw = blockHash ? await rpc('getrawtransaction', txid, false, blockHash) : await rpc('getrawtransaction', txid, false);
      } catch (err) {
        // Core answers -5; bcoin its generic -1 ("Transaction not found."): either reads as "no such transaction".
        if (err instanceof RpcError && (err.rpcCode === RPC_INVALID_ADDRESS_OR_KEY || err.rpcCode === RPC_MISC_ERROR)) return undefined;
        throw err;
      }
      const tx = decodeTx(hexBytes(raw, 'getrawtransaction'));
      if (tx.txid !== txid) throw new ChainDataError(`getrawtransaction: the transaction hashes to ${tx.txid}, not ${txid}`);
      return tx;
    },
    async mempool() {
      const ids = await rpc<unknown>('getrawmempool');
      if (!Array.isArray(ids)) throw new ChainDataError('getrawmempool: not a list');
      return ids.map((id) => hashOf(id, 'getrawmempool'));
    },
  };
}
