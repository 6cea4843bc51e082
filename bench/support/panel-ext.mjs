// The panel bench's extension, on the raw protocol so that only zot's side is measured: /bench
// opens a panel, and every typed key comes back at once as a panel_render showing what was typed.
const send = (frame) => process.stdout.write(JSON.stringify(frame) + '\n');
const PANEL = 'bench';
let typed = '';
const view = () => ({ title: 'bench', lines: [`typed:${typed}`], footer: 'esc closes' });

send({ type: 'hello', name: 'benchpanel', version: '1.0.0' });
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
    const frame = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (frame.type === 'hello_ack') {
      send({ type: 'register_command', name: 'bench', description: 'open the bench panel' });
      send({ type: 'ready' });
    } else if (frame.type === 'command_invoked') {
      typed = '';
      send({
        type: 'command_response',
        id: frame.id,
        action: 'open_panel',
        open_panel: { id: PANEL, ...view() },
      });
    } else if (frame.type === 'panel_key' && frame.key === 'rune') {
      typed += frame.text;
      send({ type: 'panel_render', panel_id: PANEL, ...view() });
    } else if (frame.type === 'shutdown') {
      send({ type: 'shutdown_ack' });
      process.exit(0);
    }
  }
});
process.stdin.on('end', () => process.exit(0));
