// The official TypeScript SDK's OAuth client against an MCP server (issue 24), for tests/signin/typescript.py.
// Usage: node client.mjs SERVER_URL CALLBACK_PORT TOOL_ARGUMENTS_JSON [SECONDS]
// CALLBACK_PORT 0: the loopback listener takes any free port (no race with another test for a port chosen ahead).
// Prints, each on a line of its own: `CALLBACK <port>` (where the listener got), `AUTHORIZE <url>` (where the
// user's browser must go), then JSON lines
// {"tools": [...names]} and {"issue_list": <CallToolResult>}; exits 0. Any failure: `ERROR <message>` on stderr,
// exit 1. Each HTTP exchange is traced on stderr. The whole run is bounded by SECONDS (default 60). Everything is kept in memory.
import { createServer } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const [serverUrl, port, argumentsJson = '{}', seconds = '60'] = process.argv.slice(2);
let redirectUrl; // http://127.0.0.1:PORT/callback, once the listener is bound
setTimeout(() => fail(`no result within ${seconds} s`), Number(seconds) * 1000).unref();

function fail(message) {
  process.stderr.write(`ERROR ${message}\n`);
  process.exit(1);
}

class MemoryProvider {
  constructor() { this.stored = {}; }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: 'gitea-mcp signin-e2e (TypeScript SDK)',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() { return this.stored.client; }
  saveClientInformation(info) { this.stored.client = info; }
  tokens() { return this.stored.tokens; }
  saveTokens(tokens) { this.stored.tokens = tokens; }
  redirectToAuthorization(url) { process.stdout.write(`AUTHORIZE ${url.toString()}\n`); }
  saveCodeVerifier(verifier) { this.stored.verifier = verifier; }
  codeVerifier() { return this.stored.verifier; }
}

// The loopback redirect: listening before the client starts (its redirect URI names the port it got); `arrived`,
// the first request to /callback, carries the code (or an error).
function callback() {
  return new Promise((listening, failed) => {
    let resolve, reject;
    const arrived = new Promise((yes, no) => { resolve = yes; reject = no; });
    arrived.catch(() => {}); // awaited by main; a listener error before then must not end the run unreported
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', redirectUrl);
      if (url.pathname !== '/callback') { res.writeHead(404).end(); return; }
      const code = url.searchParams.get('code');
      res.writeHead(code ? 200 : 400, { 'Content-Type': 'text/plain' }).end(code ? 'Signed in.' : 'Sign-in failed.');
      server.close();
      code ? resolve(code) : reject(new Error(`the redirect carried no code: ${url.search}`));
    });
    server.on('error', (error) => { failed(error); reject(error); });
    server.listen(Number(port), '127.0.0.1', () => {
      const bound = server.address().port;
      redirectUrl = `http://127.0.0.1:${bound}/callback`;
      process.stdout.write(`CALLBACK ${bound}\n`);
      listening({ arrived }); // wrapped: a promise resolved with a promise would wait for it
    });
  });
}

// Every HTTP exchange of the SDK, on stderr (`HTTP <method> <url> <status>`): what it read, and in which order.
async function traced(url, init) {
  const response = await fetch(url, init);
  process.stderr.write(`HTTP ${init?.method ?? 'GET'} ${url} ${response.status}\n`);
  return response;
}

function transportFor(provider) {
  return new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, fetch: traced });
}

async function connect(provider) {
  const client = new Client({ name: 'signin-e2e-ts', version: '1.0.0' });
  await client.connect(transportFor(provider));
  return client;
}

async function main() {
  const { arrived } = await callback();
  const provider = new MemoryProvider();
  let client;
  try {
    client = await connect(provider);
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    const transport = transportFor(provider);
    await transport.finishAuth(await arrived);
    client = await connect(provider);
  }
  const listed = await client.listTools();
  process.stdout.write(JSON.stringify({ tools: listed.tools.map((tool) => tool.name) }) + '\n');
  const result = await client.callTool({ name: 'issue_list', arguments: JSON.parse(argumentsJson) });
  process.stdout.write(JSON.stringify({ issue_list: result }) + '\n');
  await client.close();
  process.exit(0);
}

main().catch((error) => fail(error?.message ?? String(error)));
