/**
 * The network floor: a bare `node:http` server answering every request with a JSON body of a
 * given size and the same headers' weight, in its own process. Prints its port, then serves
 * until killed.
 *
 *   node bench/bare-http.ts <bodyBytes>    (through tsx)
 */
import { createServer } from 'node:http';

const bodyBytes = Number(process.argv[2] ?? 300);
const body = JSON.stringify({ data: { filler: 'x'.repeat(Math.max(0, bodyBytes - 22)) } });
const server = createServer((_request, response) => {
  response.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'private, no-store',
    'X-Request-Id': 'req_0123456789abcdef0123',
    ETag: '"0123456789abcdef0123456789abcdef"',
  });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
