// Help text, kept free of imports so that `zot --help` starts fast.

export const MAIN_HELP = `zot: a terminal coding agent with a language-agnostic extension system

Usage:
  zot [options] [prompt]          interactive session (the TUI); a prompt is sent first
  zot -p [options] <prompt>       print mode: run the prompt, print the final answer
  zot --json [options] <prompt>   JSON mode: one event per line on stdout
  zot rpc [options]               RPC mode: JSON requests on stdin, responses and events on stdout
  zot acp [options]               Agent Client Protocol over stdio, for editors (zot acp --help)
  zot auth <set|list|remove>      manage stored API keys (zot auth --help)
  zot ext <command>               manage extensions (zot ext --help)
  zot permissions [trust|untrust] list the permission rules in force; trust the project's allow rules
  zot doctor sandbox              check whether the sandbox can start here, and how to fix it
  zot rewind --list | <turn>      list this directory's checkpointed turns; restore the files of one
                                  (zot rewind --help)
  zot export [<session>] [--md]   a session as one self-contained HTML page, or Markdown (zot export --help)
  zot sandbox exec -- <program>   run a program in a sandbox built from a permissions block (zot sandbox --help)

A prompt may also come on stdin when stdin is not a terminal. In print and JSON modes a prompt
that starts with / runs that slash command (built-in or from an extension).

Options:
  -p, --print                     print mode
      --json                      JSON event stream mode
      --mode <mode>               print | json | rpc | interactive
      --provider <name>           anthropic | openai | kimi | ollama | lmstudio | vllm | llamacpp
                                  (default: the one /model saved, else anthropic)
      --model <id>                model id (default: the one /model saved, else the provider's default;
                                  lmstudio, vllm and llamacpp: the first model their server lists)
      --api-key <key>             API key for this run
      --base-url <url>            API base URL, http(s), with or without a trailing /v1 (any OpenAI-compatible
                                  server); beats a models.json baseUrl and the *_BASE_URL variables
      --system-prompt <text>      replace the system prompt (default: built-in, or $ZOT_HOME/SYSTEM.md);
                                  context files and the skill list are still added
      --append-system-prompt <t>  append to the system prompt (repeatable)
      --reasoning <level>         low | medium | high (models that support reasoning)
      --cwd <dir>                 working directory for tools and sessions
      --no-tools                  offer the model no tools
      --tools <csv>               offer only these tools (e.g. read,bash)
      --max-steps <n>             stop after n model calls per prompt (default 50)
  -c, --continue                  resume the newest session of this directory
  -r, --resume                    pick the session to resume (interactive UI)
      --session <path>            resume (or start) the session in this file
      --no-session                do not write a session file
      --no-checkpoints            do not record the working tree before a turn's tools run
                                  (docs/checkpoints.md; also "checkpoints": {"enabled": false})
      --list-models               list the provider's models and exit (a local server's: what it serves)
  -e, --ext <dir>                 load the extension in <dir> for this run (repeatable; wins over installed copies)
      --no-ext                    do not load project or installed extensions (--ext still loads)
      --ext-url <url>             connect to a remote extension (ws://, wss://, http://, https://; repeatable)
      --ext-token-env <name>      its bearer token is in this variable (default ZOT_EXT_TOKEN)
      --insecure-ext-transport    allow ws:// and http:// to addresses other than this machine's loopback
      --no-yolo                   ask before each tool call no rule allows (TUI: a dialog; RPC: confirm_request
                                  events; print and JSON modes, where nobody can answer: the call is denied)
      --allow <rule>              allow tool calls that match the rule, e.g. 'bash(npm run *)' (repeatable)
      --ask <rule>                ask before calls that match (denied where nobody can answer; repeatable)
      --deny <rule>               deny calls that match, e.g. 'read(~/.ssh/**)' (repeatable); deny beats ask
                                  beats allow; rules also live in "permissions" of config.json and of the
                                  project's .zot/settings.json (docs/security.md)
      --sandbox <mode>            off | on | required: run bash commands in a sandbox (bubblewrap; macOS:
                                  sandbox-exec). on: where it works, else say so once; required: never
                                  unsandboxed. Default: config.json's sandbox.mode, else off (docs/security.md)
      --no-skill                  no skills: no skill tool and no skill list in the system prompt
      --with-skills               accepted for compatibility (skills load by default)
      --no-context-files          do not add AGENTS.md / CLAUDE.md files to the system prompt
  -v, --version                   print the version and exit
  -h, --help                      show this help and exit

Every flag is for this run only, --provider, --model and --base-url included: /model (in the TUI,
\`zot -p "/model provider/id"\` or RPC set_model) saves the provider and model for later runs.

Providers:
  anthropic, openai, kimi         hosted APIs; a key is needed
  ollama, lmstudio, vllm, llamacpp
                                  OpenAI-compatible servers on this machine at their usual ports
                                  (11434, 1234, 8000, 8080); --base-url moves them
A server on this machine (localhost, 127.x.x.x, [::1]) needs no key; any other server does (if yours
needs none, any value will do). Base URLs, keys, models.json and wire APIs: docs/providers.md.

Environment:
  ZOT_HOME                        state directory (default: $XDG_STATE_HOME/zot or ~/.local/state/zot)
  ANTHROPIC_API_KEY, OPENAI_API_KEY, KIMI_API_KEY / MOONSHOT_API_KEY, OLLAMA_API_KEY,
  LMSTUDIO_API_KEY, VLLM_API_KEY, LLAMACPP_API_KEY
                                  API keys, needed only once a prompt or compaction calls the model
  ANTHROPIC_BASE_URL, ZOT_OPENAI_BASE_URL, OPENAI_BASE_URL
                                  base URLs. Order: --base-url, the model's baseUrl in models.json, then
                                  ZOT_OPENAI_BASE_URL (zot's own), OPENAI_BASE_URL (the official SDKs'),
                                  then the provider's API
  ZOTCORE_RPC_TOKEN               require a hello with this token as the first RPC line
  NO_COLOR                        disable colours

Exit codes: 0 ok, 1 runtime error, 2 usage error.
`;

export const AUTH_HELP = `Usage: zot auth <command>

Commands:
  set <provider>      read an API key from stdin and store it in $ZOT_HOME/auth.json (mode 0600)
  list                show providers with a stored key (masked)
  remove <provider>   delete a stored key

Providers: anthropic, openai, kimi, ollama, lmstudio, vllm, llamacpp
`;

export const ACP_HELP = `zot acp: serve the Agent Client Protocol (ACP, version 1) on stdin and stdout

Usage:
  zot acp [options]

An editor (Zed, JetBrains, Neovim, Emacs ...) starts this command and speaks JSON-RPC 2.0 with
it, one message a line; stdout carries only ACP messages, diagnostics go to stderr. Each ACP
session is a zot session in the directory the editor names, recorded like any other (see
docs/acp.md for editor settings).

Options (the same as zot's; the most useful here):
      --provider <name>           the model provider (default: the one /model saved, else anthropic)
      --model <id>                the model id
      --no-yolo                   ask the editor before every tool call no permission rule allows
      --client-terminal           run bash in the editor's terminals when it offers them (the
                                  sandbox must be off; see docs/acp.md for the trade-off)
      --allow/--ask/--deny <rule> permission rules for this run
      --no-ext                    load no extensions
      --no-session                do not record sessions (session/load then has nothing to load)
  -h, --help                      this help

Exit codes: 0 when the editor closed the connection, 1 on a failure, 2 on a usage error.
`;
