// @ts-check
// hello: slash commands with @zot/sdk. /hello greets (through the model, or on its own with a
// name); /where shows what zot told the extension at start-up; /scripts exists only in a
// project with a package.json (registered from onHello, which knows the project directory).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createExtension, display, error, prompt } from '@zot/sdk';

const ext = createExtension({ name: 'hello', version: '1.0.0' });

ext.command('hello', 'say hi (/hello NAME answers without the model)', (args) =>
  args === '' ? prompt('Greet me very briefly in one sentence.') : display(`hello, ${args}!`),
);

ext.command('where', 'show the project directory, model and zot version', (_args, { host }) =>
  display(`${host.cwd} · ${host.provider}/${host.model} · zot ${host.zotVersion}`),
);

ext.onHello((host) => {
  let scripts;
  try {
    scripts = JSON.parse(readFileSync(join(host.cwd, 'package.json'), 'utf8')).scripts;
  } catch {
    return; // not a Node project: no /scripts
  }
  ext.command('scripts', "list this project's npm scripts", () => {
    const names = Object.keys(scripts ?? {});
    if (names.length === 0) return error('package.json has no scripts');
    return display(names.map((name) => `npm run ${name}: ${scripts[name]}`).join('\n'));
  });
});

await ext.run();
