// clock: a zot extension in plain Node (no SDK, no dependencies).
//
//   /clock            shows the current local time    (command_response action "display")
//   /clock utc        shows the current time in UTC
//   /clock-prompt     asks the model which weekday today is (action "prompt")
//   clock_now         a tool: the current time in an IANA zone, e.g. {"timezone":"Europe/Berlin"}
//
// The protocol is one JSON object per line on stdin/stdout; see docs/extensions.md.

const NAME = 'clock';
const VERSION = '1.0.0';

// ---------------------------------------------------------------------------------------------
// Output: one frame per line. stdout is a pipe, so every write goes straight to the host.

function send(frame) {
  process.stdout.write(JSON.stringify(frame) + '\n');
}

// The host went away: nothing left to talk to.
process.stdout.on('error', () => process.exit(0));

let stopping = false;

/** Exits once everything written so far has been handed to the pipe. */
function stop() {
  stopping = true;
  process.stdout.write('', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------
// Input: split stdin on LF bytes only. Not `readline`: it also breaks lines at U+2028/U+2029,
// which are legal, unescaped, inside JSON strings. Lines are decoded only once complete, so a
// multi-byte character split across two chunks is safe.

const LF = 0x0a;
let pending = [];

process.stdin.on('data', (chunk) => {
  let start = 0;
  for (;;) {
    const end = chunk.indexOf(LF, start);
    if (end === -1) {
      if (start < chunk.length) pending.push(chunk.subarray(start));
      return;
    }
    let line = chunk.subarray(start, end);
    if (pending.length > 0) {
      pending.push(line);
      line = Buffer.concat(pending);
      pending = [];
    }
    start = end + 1;
    handleLine(line);
  }
});

// stdin closed: the host is gone or has finished with us.
process.stdin.on('end', stop);

function handleLine(bytes) {
  if (stopping) return;
  let text = bytes.toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.trim() === '') return;
  let frame;
  try {
    frame = JSON.parse(text);
  } catch {
    process.stderr.write(`clock: ignoring a line that is not JSON: ${text.slice(0, 80)}\n`);
    return;
  }
  if (frame === null || typeof frame !== 'object' || typeof frame.type !== 'string') return;
  try {
    onFrame(frame);
  } catch (error) {
    // A bug in one handler must not take the extension down.
    process.stderr.write(`clock: error handling ${frame.type}: ${error?.stack ?? error}\n`);
  }
}

// ---------------------------------------------------------------------------------------------
// Protocol

function onFrame(frame) {
  switch (frame.type) {
    case 'hello_ack':
      send({
        type: 'register_command',
        name: 'clock',
        description: 'show the current time (/clock utc for UTC)',
      });
      send({
        type: 'register_command',
        name: 'clock-prompt',
        description: 'ask the model which day of the week it is',
      });
      send({
        type: 'register_tool',
        name: 'clock_now',
        description:
          'Current date and time. Pass an IANA time zone to get the time there; ' +
          'without one, the local time of the machine zot runs on.',
        schema: {
          type: 'object',
          properties: {
            timezone: { type: 'string', description: 'IANA zone, e.g. Europe/Berlin' },
          },
        },
      });
      send({ type: 'ready' });
      return;
    case 'command_invoked':
      send({ type: 'command_response', id: frame.id, ...runCommand(frame.name, frame.args) });
      return;
    case 'tool_call':
      send({ type: 'tool_result', id: frame.id, ...runTool(frame.name, frame.args) });
      return;
    case 'shutdown':
      send({ type: 'shutdown_ack' });
      stop();
      return;
    default:
      // Unknown or uninteresting frames (events, panel keys, future additions) are ignored.
      return;
  }
}

function runCommand(name, rawArgs) {
  const args = typeof rawArgs === 'string' ? rawArgs.trim().toLowerCase() : '';
  const now = new Date();
  switch (String(name).toLowerCase()) {
    case 'clock':
      if (args === '') return { action: 'display', display: describe(now, localZone()) };
      if (args === 'utc') return { action: 'display', display: describe(now, 'UTC') };
      return { error: `/clock: unknown argument "${rawArgs.trim()}" (use /clock or /clock utc)` };
    case 'clock-prompt':
      return {
        action: 'prompt',
        prompt:
          `Today's date is ${parts(now, localZone()).date}. ` +
          'What day of the week is it today? Answer in one short sentence.',
      };
    default:
      return { error: `clock does not provide the command /${name}` };
  }
}

function runTool(name, args) {
  if (name !== 'clock_now') return failure(`clock does not provide the tool ${name}`);
  const zone = args?.timezone;
  if (zone !== undefined && zone !== null && typeof zone !== 'string') {
    return failure(
      `"timezone" must be a string such as "Europe/Berlin", got ${JSON.stringify(zone)}`,
    );
  }
  const timeZone = zone ? zone.trim() : localZone();
  if (!isValidZone(timeZone)) {
    return failure(
      `unknown time zone "${zone}": use an IANA name such as "Europe/Berlin", ` +
        '"America/New_York" or "UTC"',
    );
  }
  return { content: [{ type: 'text', text: describe(new Date(), timeZone) }] };
}

function failure(message) {
  return { content: [{ type: 'text', text: message }], is_error: true };
}

// ---------------------------------------------------------------------------------------------
// Time formatting with the built-in Intl API (Node ships full ICU data).

function localZone() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function isValidZone(timeZone) {
  if (timeZone === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Date, time, weekday and UTC offset of `date` in `timeZone`. */
function parts(date, timeZone) {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'long',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'shortOffset',
  });
  const get = {};
  for (const part of format.formatToParts(date)) get[part.type] = part.value;
  return {
    date: `${get.year}-${get.month}-${get.day}`,
    time: `${get.hour}:${get.minute}:${get.second}`,
    weekday: get.weekday,
    offset: get.timeZoneName, // "GMT+2", "GMT-4:30", or "GMT" for UTC
  };
}

/** For example "Wednesday 2025-05-14 16:03:27 (Europe/Berlin, GMT+2)". */
function describe(date, timeZone) {
  const p = parts(date, timeZone);
  return `${p.weekday} ${p.date} ${p.time} (${timeZone}, ${p.offset})`;
}

// ---------------------------------------------------------------------------------------------
// Start: the first line on stdout must be hello.

send({ type: 'hello', name: NAME, version: VERSION, capabilities: ['commands', 'tools'] });
