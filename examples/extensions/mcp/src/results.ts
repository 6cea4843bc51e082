// Mapping an MCP tool result onto zot's result types: text and images pass through, embedded
// resources become text (or an image when they are one), links and audio become short notes.
// `isError` is kept. Sizes are bounded: a server's answer can be anything.
import type { ContentBlock } from '@zot/sdk';

export const RESULT_LIMITS = {
  blocks: 256,
  textChars: 1024 * 1024,
  images: 16,
  imageBase64Chars: 10 * 1024 * 1024,
} as const;

/** The image types zot accepts; anything else is described in text instead. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export interface BridgeResult {
  readonly content: ContentBlock[];
  readonly isError: boolean;
}

type Raw = Record<string, unknown>;
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

function describeBinary(
  what: string,
  mime: string | undefined,
  base64: string | undefined,
): string {
  const bytes = base64 === undefined ? 0 : Math.floor((base64.length * 3) / 4);
  return `[${what}${mime ? ` (${mime})` : ''}, about ${bytes} bytes, not shown]`;
}

export function mapResult(result: unknown): BridgeResult {
  const raw = (typeof result === 'object' && result !== null ? result : {}) as Raw;
  const isError = raw.isError === true;
  const blocks = Array.isArray(raw.content) ? (raw.content as unknown[]) : [];
  const content: ContentBlock[] = [];
  let textLeft: number = RESULT_LIMITS.textChars;
  let images = 0;
  let dropped = 0;

  const addText = (text: string) => {
    if (textLeft <= 0) return void dropped++;
    const kept =
      text.length > textLeft
        ? `${text.slice(0, textLeft)}\n[… cut: the MCP result was longer]`
        : text;
    textLeft -= text.length;
    content.push({ type: 'text', text: kept });
  };
  const addImage = (mime: string | undefined, data: string | undefined, what: string) => {
    const ok =
      mime !== undefined &&
      data !== undefined &&
      IMAGE_TYPES.has(mime) &&
      images < RESULT_LIMITS.images &&
      data.length <= RESULT_LIMITS.imageBase64Chars;
    if (!ok) return addText(describeBinary(what, mime, data));
    images++;
    content.push({ type: 'image', mime_type: mime, data });
  };

  for (const item of blocks.slice(0, RESULT_LIMITS.blocks)) {
    if (typeof item !== 'object' || item === null) continue;
    const block = item as Raw;
    switch (block.type) {
      case 'text':
        addText(str(block.text) ?? '');
        break;
      case 'image':
        addImage(str(block.mimeType), str(block.data), 'image');
        break;
      case 'audio':
        addText(describeBinary('audio', str(block.mimeType), str(block.data)));
        break;
      case 'resource': {
        const resource = (
          typeof block.resource === 'object' && block.resource ? block.resource : {}
        ) as Raw;
        const uri = str(resource.uri) ?? '(no uri)';
        const mime = str(resource.mimeType);
        const text = str(resource.text);
        if (text !== undefined) addText(`[resource ${uri}${mime ? ` (${mime})` : ''}]\n${text}`);
        else if (mime?.startsWith('image/')) addImage(mime, str(resource.blob), `resource ${uri}`);
        else addText(describeBinary(`resource ${uri}`, mime, str(resource.blob)));
        break;
      }
      case 'resource_link': {
        const name = str(block.name) ?? str(block.title) ?? '';
        const mime = str(block.mimeType);
        const about = str(block.description);
        addText(
          `[resource link ${str(block.uri) ?? '(no uri)'}${name ? ` "${name}"` : ''}${mime ? ` (${mime})` : ''}${about ? `: ${about}` : ''}]`,
        );
        break;
      }
      default:
        addText(
          `[MCP content of type ${JSON.stringify(String(block.type)).slice(0, 40)}, not shown]`,
        );
    }
  }
  dropped += Math.max(0, blocks.length - RESULT_LIMITS.blocks);
  // Structured output only: show it, as servers are asked to mirror it in text but not all do.
  if (content.length === 0 && raw.structuredContent !== undefined) {
    addText(JSON.stringify(raw.structuredContent, null, 2) ?? '');
  }
  if (dropped > 0)
    content.push({ type: 'text', text: `[${dropped} more content block(s) left out]` });
  return { content, isError };
}
