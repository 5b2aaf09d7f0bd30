// A loopback port nobody listens on right now (the system picks it; the socket is closed again at
// once, so a caller that needs it held until its own bind uses a reservation of its own instead,
// as deploy.int.test.ts does). Shared by the test clusters, the benches and the tests.
import net from 'node:net';

/** @returns {Promise<number>} */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}
