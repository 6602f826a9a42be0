// Authorization end to end: a real authorization server (oauth2-mock-server, pinned, started here
// on loopback) issues RS256 JWTs from its own JWKS; the weather example, built from its IDL with
// `scopes:` keys added (tests/CMakeLists.txt: the server's weather:read, get_weather_upstream's
// weather:admin), checks them; the official TypeScript clients, v1 (@modelcontextprotocol/sdk)
// and v2 (@modelcontextprotocol/client, over 2025-11-25 and pinned to 2026-07-28), find the
// authorization server through the server's 401 and its protected resource metadata, obtain
// tokens with client credentials, and call tools. A token without a tool's scope gets 403 with
// the scope it needs, in either protocol revision.
//
// The authorization server grants the scopes asked for and binds each token to the resource the
// client names (RFC 8707: `resource` becomes `aud`), except that client "reader" never gets
// weather:admin.
//
// Environment: WEATHER_SCOPED (required). Under with_tls.sh (MCP_TLS_CERT, MCP_TLS_KEY,
// NODE_EXTRA_CA_CERTS) the MCP server serves HTTPS, trusted through NODE_EXTRA_CA_CERTS.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { OAuth2Server } from 'oauth2-mock-server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider as CredentialsV1 } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import {
  Client as ClientV2,
  ClientCredentialsProvider as CredentialsV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';

import { freePort, startHttpServer, tlsArgs } from './e2e_util.mjs';

const SERVER = process.env.WEATHER_SCOPED;
const TLS = tlsArgs().length > 0;
const START_TIMEOUT_MS = 60_000;
const MODERN = '2026-07-28';

describe(`authorization over ${TLS ? 'HTTPS' : 'HTTP'}`, () => {
  let as, issuer, server, url, origin, metadataUrl;

  before(async () => {
    assert.ok(SERVER, 'WEATHER_SCOPED must name the scoped weather server');
    as = new OAuth2Server();
    await as.issuer.keys.generate('RS256');
    await as.start(0, '127.0.0.1');
    issuer = as.issuer.url;
    as.service.on('beforeTokenSigning', (token, req) => {
      const body = req.body ?? {};
      const client = body.client_id ?? 'unknown';
      token.payload.sub = `client:${client}`;
      token.payload.aud = body.resource ?? 'no-resource';
      if (client === 'reader' && typeof token.payload.scope === 'string')
        token.payload.scope = token.payload.scope.split(' ').filter((s) => s !== 'weather:admin').join(' ');
    });
    const port = await freePort();
    origin = `${TLS ? 'https' : 'http'}://127.0.0.1:${port}`;
    url = `${origin}/mcp`;
    metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
    server = await startHttpServer(SERVER, [
      '--http', `127.0.0.1:${port}`, ...tlsArgs(),
      '--auth-issuer', issuer, '--auth-resource', url, '--auth-jwks', `${issuer}/jwks`,
    ], START_TIMEOUT_MS);
    assert.equal(server.url, url);
  });

  after(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill('SIGTERM');
      const { code } = await server.exited;
      assert.equal(code, 0, `the server's exit status:\n${server.stderr()}`);
    }
    await as?.stop();
  });

  test('the protected resource metadata answers at both well-known paths', async () => {
    const want = {
      resource: url,
      authorization_servers: [issuer],
      scopes_supported: ['weather:read', 'weather:admin'],
      bearer_methods_supported: ['header'],
      resource_name: 'weather',
    };
    for (const u of [metadataUrl, `${origin}/.well-known/oauth-protected-resource`]) {
      const r = await fetch(u);
      assert.equal(r.status, 200);
      assert.deepEqual(await r.json(), want);
    }
  });

  test('a request without a token gets 401 and the challenge', async () => {
    const r = await initialize();
    assert.equal(r.status, 401);
    assert.equal(r.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}", scope="weather:read"`);
    const m = await post(modernCall('get_weather'), modernHeaders('get_weather'));
    assert.equal(m.status, 401);
    assert.equal(m.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}", scope="weather:read"`);
  });

  for (const [name, Client, Transport, Credentials, mode] of [
    ['v1', ClientV1, TransportV1, CredentialsV1],
    ['v2', ClientV2, TransportV2, CredentialsV2, 'legacy'],
    ['v2', ClientV2, TransportV2, CredentialsV2, { pin: MODERN }],
  ]) {
    const label = mode ? `${name} (${mode === 'legacy' ? '2025-11-25' : MODERN})` : name;
    test(`the ${label} client obtains a token by itself and calls tools`, async () => {
      // v1's client-credentials flow asks for the scope configured here, not for the one the
      // challenge or the metadata names (sdk 1.32.2, fetchToken); v2 asks for the 401's scope
      // (weather:read), and on get_weather_upstream's 403 for that and the 403's (step-up).
      const scope = name === 'v1' ? { scope: 'weather:read weather:admin' } : {};
      const authProvider = new Credentials({
        clientId: `full-${name}`, clientSecret: 'unused', expectedIssuer: issuer, ...scope,
      });
      const options = mode ? { versionNegotiation: { mode } } : {};
      const client = new Client({ name: `mcpidl-e2e-auth-${name}`, version: '1.0.0' }, options);
      const transport = new Transport(new URL(url), { authProvider });
      await client.connect(transport);
      try {
        const r = await client.callTool({ name: 'get_weather', arguments: { city: 'London' } });
        assert.equal(r.isError, false);
        assert.deepEqual(r.structuredContent, { temperature: 16.2, humidity: 0.83, conditions: 'Overcast' });
        // With weather:admin too (v1 from the start, v2 after its step-up) the admin tool runs
        // (and meets its upstream's bad data, an isError result as without authorization).
        const u = await client.callTool({ name: 'get_weather_upstream', arguments: { city: 'London' } });
        assert.equal(u.isError, true);
        assert.ok(authProvider.tokens()?.access_token, 'the provider holds the token it obtained');
      } finally {
        await transport.terminateSession?.().catch(() => {});
        await client.close();
      }
    });
  }

  test('a token without a tool\'s scope gets 403 insufficient_scope; the tools it may call answer', async () => {
    const tok = await clientCredentials('reader', 'weather:read weather:admin');
    const auth = { authorization: `Bearer ${tok}` };
    let r = await initialize(auth);
    assert.equal(r.status, 200);
    const sid = r.headers.get('mcp-session-id');
    const headers = { ...auth, 'mcp-session-id': sid };
    r = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    assert.equal(r.status, 202);
    r = await post(toolCall('get_weather_upstream'), headers);
    assert.equal(r.status, 403);
    assert.equal(r.headers.get('www-authenticate'),
      'Bearer error="insufficient_scope", error_description="the token lacks a scope this request needs", ' +
      `resource_metadata="${metadataUrl}", scope="weather:admin"`);
    r = await post(toolCall('get_weather'), headers);
    assert.equal(r.status, 200);
    assert.equal((await r.json()).result.isError, false);
  });

  test(`a ${MODERN} request without a tool's scope gets 403 insufficient_scope too`, async () => {
    const tok = await clientCredentials('reader', 'weather:read weather:admin');
    const auth = { authorization: `Bearer ${tok}` };
    let r = await post(modernCall('get_weather_upstream'), { ...auth, ...modernHeaders('get_weather_upstream') });
    assert.equal(r.status, 403);
    assert.equal(r.headers.get('www-authenticate'),
      'Bearer error="insufficient_scope", error_description="the token lacks a scope this request needs", ' +
      `resource_metadata="${metadataUrl}", scope="weather:admin"`);
    r = await post(modernCall('get_weather'), { ...auth, ...modernHeaders('get_weather') });
    assert.equal(r.status, 200);
    const body = await r.json();
    assert.equal(body.result.isError, false, JSON.stringify(body));
  });

  test('a token for another resource gets 401 invalid_token', async () => {
    const tok = await clientCredentials('full', 'weather:read', 'https://elsewhere.example/mcp');
    const r = await initialize({ authorization: `Bearer ${tok}` });
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate'), /error="invalid_token", error_description="the token is for another resource"/);
  });

  // ---------------------------------------------------------------- helpers

  async function clientCredentials(clientId, scope, resource = url) {
    const r = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, scope, resource }),
    });
    assert.equal(r.status, 200);
    return (await r.json()).access_token;
  }

  function post(message, headers = {}) {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(message),
    });
  }

  function initialize(headers = {}) {
    return post({
      jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }, headers);
  }

  function modernCall(name) {
    return {
      jsonrpc: '2.0', id: 3, method: 'tools/call',
      params: {
        name, arguments: { city: 'London' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    };
  }

  function modernHeaders(name) {
    return { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name };
  }

  function toolCall(name) {
    return { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: { city: 'London' } } };
  }
});
