// @ts-check
// weather: a tool the model can call, on @zot/sdk. It asks wttr.in (or WEATHER_BASE_URL, a
// mirror or a test server) for the current conditions; a failure is a tool error the model
// reads, never a crash. /weather CITY asks the model, which then calls the tool. It is scoped:
// extension.json lets it reach wttr.in only, through the proxy zot runs (see get-json.mjs).
import { createExtension, prompt, text, toolError } from '@zot/sdk';
import { getJson } from './get-json.mjs';

const BASE_URL = process.env.WEATHER_BASE_URL ?? 'https://wttr.in';
const ext = createExtension({ name: 'weather', version: '1.0.0' });

ext.tool(
  'weather',
  'Current weather for a city: temperature, conditions, wind and humidity.',
  {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name, e.g. "Berlin"' },
      units: { enum: ['metric', 'imperial'], description: 'Default metric' },
    },
    required: ['city'],
  },
  async ({ city, units = 'metric' }) => {
    const url = `${BASE_URL}/${encodeURIComponent(city)}?format=j1`;
    let data;
    try {
      const response = await getJson(url, 10_000);
      if (response.status !== 200)
        return toolError(`weather service: HTTP ${response.status} for ${city}`);
      data = response.body;
    } catch (err) {
      return toolError(`weather service unreachable: ${err instanceof Error ? err.message : err}`);
    }
    const now = data?.current_condition?.[0];
    if (!now) return toolError(`no weather for ${city}`);
    const metric = units === 'metric';
    const temp = metric ? `${now.temp_C}°C` : `${now.temp_F}°F`;
    const wind = metric ? `${now.windspeedKmph} km/h` : `${now.windspeedMiles} mph`;
    const sky = now.weatherDesc?.[0]?.value ?? 'unknown';
    return text(`${city}: ${temp}, ${sky}, wind ${wind}, humidity ${now.humidity}%`);
  },
);

ext.command('weather', 'current weather for a city, through the model', (args) =>
  prompt(`What is the weather in ${args || 'Berlin'} right now? Answer in one line.`),
);

await ext.run();
