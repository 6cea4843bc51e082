// What waits for the agent: follow-ups (prompts run after the current one, in order) and
// steering messages (added to the running prompt at its next step boundary, so the model sees
// them before it continues). Every change is reported as one `queue` event.
import type { UserContent, UserMessage } from '../contract/content.js';

/** How a waiting message is listed: its text, images as `[image]`. */
const shown = (content: UserContent[]) =>
  content.map((block) => (block.type === 'text' ? block.text : '[image]')).join(' ');

export type PromptMode = 'follow_up' | 'steer';

/** A follow-up's place in the queue; `start` takes it off when its run begins. */
export interface FollowUp {
  readonly text: string;
  /** Set when the user cancelled the queue before this follow-up started. */
  dropped?: boolean;
}

export class PromptQueue {
  private followUps: FollowUp[] = [];
  private steering: UserMessage[] = [];

  constructor(
    private readonly report: (queue: { steering: string[]; follow_up: string[] }) => void,
  ) {}

  addFollowUp(content: UserContent[]): FollowUp {
    const entry = { text: shown(content) };
    this.followUps.push(entry);
    this.changed();
    return entry;
  }

  start(entry: FollowUp): void {
    const index = this.followUps.indexOf(entry);
    if (index === -1) return;
    this.followUps.splice(index, 1);
    this.changed();
  }

  steer(message: UserMessage): void {
    this.steering.push(message);
    this.changed();
  }

  /** The steering messages, in the order they came, leaving none. */
  takeSteering(): UserMessage[] {
    if (this.steering.length === 0) return [];
    const taken = this.steering;
    this.steering = [];
    this.changed();
    return taken;
  }

  /** Takes the last waiting follow-up back (to edit it); undefined when none waits. */
  takeLastFollowUp(): FollowUp | undefined {
    const entry = this.followUps.pop();
    if (!entry) return undefined;
    entry.dropped = true;
    this.changed();
    return entry;
  }

  /** Drops every waiting follow-up and steering message (Esc); they will not run. */
  dropAll(): number {
    const dropped = this.followUps.length + this.steering.length;
    if (dropped === 0) return 0;
    for (const entry of this.followUps) entry.dropped = true;
    this.followUps = [];
    this.steering = [];
    this.changed();
    return dropped;
  }

  private changed(): void {
    this.report({
      steering: this.steering.map((message) => shown(message.content)),
      follow_up: this.followUps.map((entry) => entry.text),
    });
  }
}
