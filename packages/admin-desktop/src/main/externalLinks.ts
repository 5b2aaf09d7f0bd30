/**
 * The only links that leave the app: block-explorer transaction pages (from the pending payments
 * table), opened in the system browser. Everything else is refused.
 */
export const EXPLORER_HOSTS = ['mempool.space', 'blockstream.info', 'blockchair.com', 'www.blockchain.com', 'live.blockcypher.com'];

export function isExplorerUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && !url.username && !url.password && EXPLORER_HOSTS.includes(url.hostname);
}
