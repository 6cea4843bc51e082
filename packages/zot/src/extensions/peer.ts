// Request/reply correlation for one extension. The peer lives in @zot/protocol, shared with the
// SDK (which answers the requests this side asks); this module keeps the host's import path.
export {
  Peer,
  REPLY_TYPE,
  RequestError,
  isReplyType,
  type Delivery,
  type OutgoingRequest,
  type ReplyFrame,
  type ReplyTo,
  type ReplyType,
  type RequestOf,
  type RequestType,
} from '@zot/protocol';
