export { PROTOCOL_VERSION } from '@zot/protocol';
