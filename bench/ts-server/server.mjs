// The TypeScript peer of the server benchmark: the official MCP TypeScript SDK's McpServer,
// written to the same tool contract as examples/weather (get_weather: {city: str} -> WeatherData),
// with zod schemas, served over stdio. Its answer carries the same content text and
// structuredContent as the mcpidl server's.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const READINGS = {
  London: { temperature: 16.2, humidity: 0.83, conditions: 'Overcast' },
  Cairo: { temperature: 34.1, humidity: 0.21, conditions: 'Sunny' },
  Reykjavik: { temperature: 4.4, humidity: 0.76, conditions: 'Windy' },
};

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

await server.connect(new StdioServerTransport());
