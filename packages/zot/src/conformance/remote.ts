// `zot ext test --url`: the kit against an extension served over WebSocket or HTTP, connected to
// through the host's own transports (extensions/transports/open-remote.ts) with the token, TLS,
// proxy and loopback rule the host applies. There is no manifest: the extension is named by its
// hello, and the checks only a process can pass (its manifest, sandbox, exit and process group)
// are reported as not applicable, each by name.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Manifest } from '../ext-setup/manifest.js';
import { displayUrl } from '../ext-setup/remote-config.js';
import { loadSchemaCheck } from '../extensions/registrations.js';
import { openRemote, type RemoteSpec } from '../extensions/transports/open-remote.js';
import type { AgentFor } from '../extensions/transports/remote-connect.js';
import { NOT_FOR_REMOTE } from './kit.js';
import { Checks, type ReportJson } from './report.js';
import { drive, reportOf, type DriveOptions } from './run.js';

export interface RemoteRunOptions extends DriveOptions {
  /** The manifest zot makes for `--ext-url URL` (ext-setup/remote-entry.ts), its `remote` set. */
  manifest: Manifest;
  /** From prepareRemoteLink: the config with where its token came from, and the token. */
  link: Pick<RemoteSpec, 'config' | 'token'>;
  /** The providers' proxy settings, as the host connects. */
  agent?: AgentFor;
}

export async function runRemoteKit(options: RemoteRunOptions): Promise<ReportJson> {
  const began = Date.now();
  await loadSchemaCheck();
  const { timeouts, link } = options;
  const url = displayUrl(link.config.url);
  const remote = { transport: link.config.type, url };
  const checks = new Checks();
  checks.skip(
    { check: 'manifest' },
    `${NOT_FOR_REMOTE} it has no extension.json; its name and version come from its hello`,
  );
  checks.skip(
    { check: 'scope' },
    `${NOT_FOR_REMOTE} it runs on its server, where zot sandboxes nothing; what it may reach is up to that server`,
  );
  const scratch = mkdtempSync(join(tmpdir(), 'zot-ext-test-'));
  const project = join(scratch, 'project');
  const dataDir = join(scratch, 'data');
  mkdirSync(project);
  return drive(
    options,
    {
      checks,
      manifest: options.manifest,
      scratch,
      project,
      dataDir,
      began,
      remote,
      open: (log) =>
        openRemote(
          {
            ...link,
            agent: options.agent,
            connectTimeoutMs: timeouts.helloMs,
            closeGraceMs: timeouts.killGraceMs,
          },
          log,
        ),
    },
    (child, kit) =>
      reportOf(
        checks,
        timeouts,
        began,
        {
          name: child.first?.frame?.type === 'hello' ? kit.manifest.name : null,
          version: kit.manifest.version ?? null,
          dir: url,
          manifest: null,
          remote,
        },
        child,
      ),
  );
}
