// URL credentials out of messages: zot's own helper, bundled into dist/mcp.mjs like the SDK, so
// the bridge and zot hide the same things (user information, token-like query values).
export { redactUrl, redactUrlsIn } from '../../../../packages/zot/src/util/redact.js';
