// An ACP prompt as zot's prompt text and images, and zot's outcome as an ACP stop reason.
import type { ContentBlock, StopReason } from '@agentclientprotocol/sdk';
import type { ImageBlock } from '../../contract/content.js';
import type { PromptOutcome } from '../../contract/front-end.js';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export interface ZotPrompt {
  text: string;
  images: ImageBlock[];
  /** Blocks that could not be passed on, one line each (said to the user, not fatal). */
  skipped: string[];
}

/**
 * Text blocks joined in order; a resource link as `@uri` (the model can read a file: URI's
 * path); an embedded text resource as a block fenced with its URI, so the model sees what the
 * editor attached; images (and image blobs) as images. Audio and other binary is skipped.
 */
export function promptOf(blocks: readonly ContentBlock[]): ZotPrompt {
  const parts: string[] = [];
  const images: ImageBlock[] = [];
  const skipped: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image':
        if (IMAGE_TYPES.has(block.mimeType)) {
          images.push({ type: 'image', mime_type: block.mimeType, data: block.data });
        } else skipped.push(`an image of type ${block.mimeType} (zot takes png, jpeg, gif, webp)`);
        break;
      case 'resource_link':
        parts.push(`@${pathOfUri(block.uri)}`);
        break;
      case 'resource': {
        const { resource } = block;
        if ('text' in resource) {
          parts.push(`<context uri="${resource.uri}">\n${resource.text}\n</context>`);
        } else if (resource.mimeType && IMAGE_TYPES.has(resource.mimeType)) {
          images.push({ type: 'image', mime_type: resource.mimeType, data: resource.blob });
        } else {
          skipped.push(`the binary resource ${resource.uri}`);
        }
        break;
      }
      default:
        skipped.push(`a content block of type ${(block as { type: string }).type}`);
    }
  }
  return { text: parts.join('\n'), images, skipped };
}

/** A file: URI as its path; any other URI as it is. */
export function pathOfUri(uri: string): string {
  if (!uri.startsWith('file://')) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

/**
 * The ACP stop reason of a prompt's outcome; undefined when it failed (the caller answers the
 * request with an error).
 */
export function stopReasonOf(outcome: PromptOutcome): StopReason | undefined {
  if (outcome.refusal) return 'refusal';
  switch (outcome.stop) {
    case 'end_turn':
    case 'tool_use':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'aborted':
      return 'cancelled';
    case 'error':
      if (outcome.errorKind === 'max_steps') return 'max_turn_requests';
      if (outcome.errorKind === 'refusal') return 'refusal';
      return undefined;
  }
}
