// The scratchpad file format: one note per line.

export function parseNotes(content: string): string[] {
  return content.split('\n').filter((line) => line.trim() !== '');
}

export function formatNotes(notes: readonly string[]): string {
  if (notes.length === 0) return 'the scratchpad is empty';
  return notes.map((note, i) => `${i + 1}. ${note}`).join('\n');
}
