// The chat's screen in miniature, for tests of frame costs: a root frame holding a frame with a
// log of blocks (settling as they finish), then a status line that changes every frame.
import { FittedFrame } from '../fitted-frame.js';
import { SettledLog } from '../settled-log.js';

/** A block whose text can grow, as a streamed answer's does. */
export class GrowingBlock {
  constructor(public text: string) {}
  render = (width: number) => this.text.split('\n').map((line) => line.slice(0, width));
  invalidate() {}
}

export function chatFrame(): { root: FittedFrame; log: SettledLog; tick: () => void } {
  const root = new FittedFrame();
  const chat = new FittedFrame();
  const log = new SettledLog();
  chat.addChild(log);
  root.addChild(chat);
  let ticks = 0;
  root.addChild({ render: () => [`\x1b[2mstatus ${ticks}\x1b[22m`], invalidate() {} });
  return { root, log, tick: () => void ticks++ };
}
