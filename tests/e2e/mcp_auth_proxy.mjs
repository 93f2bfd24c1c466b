// A loopback proxy that adds `Authorization: Bearer TOKEN` to every request and passes the rest
// (Host and Origin included, bodies and event streams as they come) to ralph serve, for test
// harnesses that cannot send a header of their own (the MCP conformance suite).
// Usage: node auth_proxy.mjs TARGET_PORT TOKEN; prints "listening PORT" once it listens.
import http from 'node:http';

const [targetPort, token] = process.argv.slice(2);
const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  // The proxy's own loopback address becomes ralph's, so its Host and Origin checks see what a
  // client talking to it directly would send; any other name passes unchanged.
  const own = new RegExp(`^((?:https?://)?(?:localhost|127\\.0\\.0\\.1|\\[::1\\])):${server.address().port}$`);
  for (const name of ['host', 'origin']) {
    if (headers[name]) headers[name] = headers[name].replace(own, `$1:${targetPort}`);
  }
  const upstream = http.request(
    { host: '127.0.0.1', port: Number(targetPort), method: req.method, path: req.url, headers },
    (reply) => {
      res.writeHead(reply.statusCode, reply.headers);
      reply.pipe(res);
    });
  upstream.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
