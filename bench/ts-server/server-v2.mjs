// The TypeScript SDK v2 peer (@modelcontextprotocol/server, with @modelcontextprotocol/node for
// node:http): the same get_weather tool and answer as server.mjs, written as v2 wants it, a
// factory of McpServer instances that serves both revisions.
//
//   node server-v2.mjs                   stdio (serveStdio: 2026-07-28 requests and 2025 sessions)
//   node server-v2.mjs --http PORT       Streamable HTTP on 127.0.0.1:PORT/mcp (createMcpHandler:
//                                        2026-07-28 requests, and 2025 requests served statelessly,
//                                        a fresh instance per request; v2 has no 2025 sessions here)
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
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
      inputSchema: z.object({ city: z.string() }),
      outputSchema: z.object({
        temperature: z.number().describe('Degrees Celsius.'),
        humidity: z.number().describe('Relative humidity, 0 to 1.'),
        conditions: z.string(),
      }),
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
  serveStdio(weatherServer);
} else {
  const handler = toNodeHandler(createMcpHandler(weatherServer));
  createServer((req, res) => {
    if (!req.url.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    handler(req, res);
  }).listen(Number(args[at + 1]), '127.0.0.1');
}
