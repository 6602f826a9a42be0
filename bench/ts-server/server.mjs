// The TypeScript peer of the server benchmark: the official MCP TypeScript SDK v1's McpServer,
// written to the same tool contract as examples/weather (get_weather: {city: str} -> WeatherData),
// with zod schemas. Its answer carries the same content text and structuredContent as the
// mcpidl server's.
//
//   node server.mjs                                   stdio
//   node server.mjs --http PORT [--stateless] [--json]
//
// Over HTTP: Streamable HTTP on 127.0.0.1:PORT/mcp, on node:http. Stateful by default (one
// McpServer and transport per session, created by initialize, found by Mcp-Session-Id, GET
// streams served); --stateless: a fresh McpServer and transport per request, as the SDK's
// stateless example does. --json: answers as application/json (enableJsonResponse), else SSE.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const READINGS = {
  London: { temperature: 16.2, humidity: 0.83, conditions: 'Overcast' },
  Cairo: { temperature: 34.1, humidity: 0.21, conditions: 'Sunny' },
  Reykjavik: { temperature: 4.4, humidity: 0.76, conditions: 'Windy' },
};

function weatherServer() {
  const server = new McpServer({ name: 'weather', title: 'Weather', version: '1.0.0' });
  server.registerTool(
    'get_weather',
    {
      description: 'Current weather for a city.',
      inputSchema: { city: z.string() },
      outputSchema: {
        temperature: z.number().describe('Degrees Celsius.'),
        humidity: z.number().describe('Relative humidity, 0 to 1.'),
        conditions: z.string(),
      },
    },
    async ({ city }) => {
      const r = READINGS[city];
      if (!r) {
        return {
          content: [{ type: 'text', text: `no reading for '${city}' (known cities: London, Cairo, Reykjavik)` }],
          isError: true,
        };
      }
      const out = { temperature: r.temperature, humidity: r.humidity, conditions: r.conditions };
      return { content: [{ type: 'text', text: JSON.stringify(out, null, 2) }], structuredContent: out };
    },
  );
  return server;
}

const args = process.argv.slice(2);
const at = args.indexOf('--http');
if (at < 0) {
  await weatherServer().connect(new StdioServerTransport());
} else {
  const port = Number(args[at + 1]);
  const stateless = args.includes('--stateless');
  const enableJsonResponse = args.includes('--json');
  const sessions = new Map(); // Mcp-Session-Id -> transport

  const readBody = (req) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const fail = (res, status, message) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  };

  createServer(async (req, res) => {
    try {
      if (!req.url.startsWith('/mcp')) return fail(res, 404, 'Not found');
      const body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
      if (stateless) {
        const server = weatherServer();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
        res.on('close', () => {
          transport.close();
          server.close();
        });
        await server.connect(transport);
        return await transport.handleRequest(req, res, body);
      }
      const id = req.headers['mcp-session-id'];
      let transport = id ? sessions.get(id) : undefined;
      if (!transport) {
        if (id || req.method !== 'POST' || !isInitializeRequest(body)) return fail(res, id ? 404 : 400, 'No valid session');
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse,
          onsessioninitialized: (sid) => sessions.set(sid, transport),
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await weatherServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) fail(res, 500, String(e));
    }
  }).listen(port, '127.0.0.1');
}
