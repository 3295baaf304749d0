import { UnexpectedMessageError, WaitTimeoutError } from './errors';
import { extractCode, extractLink } from './extract';
import type { Email, EmailId, Message } from './types';
import { describeCriteria } from './wait-report';
import { messageMatches, type CallOptions, type Mark, type MessageMatch, type WaitForMessagesOptions, type WaitOptions } from './wait-for-message';

/** Options of an inbox's wait: the client's wait options without `match` (given apart). */
export type InboxWaitOptions = Omit<WaitOptions, 'match'>;

/**
 * What an inbox asks of its client (`TempmailClient` has it): owned here, so that the client's
 * module imports the inbox's and never the reverse.
 */
export interface InboxClient {
  mark(emailId: EmailId, options?: CallOptions): Promise<Mark>;
  waitForMessages(emailId: EmailId, options: WaitForMessagesOptions): Promise<Message[]>;
  /** Message ids the client's waits returned for an email: shared by every inbox of that email. */
  returnedIds(emailId: string): Set<string>;
}

/**
 * One email with the waits a test needs. Its waits share the client's memory: none returns a
 * message an earlier wait returned, so a second wait returns the second mail.
 */
export class Inbox<Client extends InboxClient = InboxClient> {
  /** HTTP requests this inbox's waits and marks sent. */
  requests = 0;
  /** What the last wait spent (also after a failed wait). */
  lastWait: { requests: number } | undefined;
  /** The messages this inbox's waits (and `toHaveReceived`) returned, in order, each once: the Playwright fixture reports them when a test fails. */
  readonly returned: Message[] = [];
  /** Messages an assertion found and no wait has returned yet. */
  private readonly kept: Message[] = [];

  constructor(
    readonly client: Client,
    readonly email: Email,
    /** Options every wait of this inbox starts from (the fixture gives the test's time left and its teardown signal). */
    private readonly defaults: () => InboxWaitOptions = () => ({}),
  ) {}

  get id(): EmailId {
    return this.email.id;
  }

  get address(): string {
    return this.email.address;
  }

  /** What the inbox holds now (one charged request): take it before the action, pass it as `after`. */
  async mark(options: CallOptions = {}): Promise<Mark> {
    const mark = await this.client.mark(this.id, { signal: this.defaults().signal, ...options });
    this.requests++;
    return mark;
  }

  /** Waits for the oldest new message that matches (default 30 s, or the test's time left in the fixture). */
  async waitForMessage(match: MessageMatch = {}, options: InboxWaitOptions = {}): Promise<Message> {
    return (await this.waitForMessages(1, match, options))[0]!;
  }

  /** Waits for `count` new matching messages, oldest first; with `exact`, more than `count` in the poll that completes them fails. */
  async waitForMessages(count: number, match: MessageMatch = {}, options: InboxWaitOptions & { exact?: boolean } = {}): Promise<Message[]> {
    const merged = { ...this.defaults(), ...options };
    const returned = this.client.returnedIds(this.id);
    const inHand = this.kept.filter((message) => !returned.has(message.id) && messageMatches(message, match, merged)).slice(0, count);
    for (const message of inHand) {
      this.kept.splice(this.kept.indexOf(message), 1);
      returned.add(message.id);
    }
    if (inHand.length === count) {
      this.lastWait = { requests: 0 };
      return this.remember(inHand);
    }
    const more = await this.client.waitForMessages(this.id, {
      ...merged,
      count: count - inHand.length,
      match,
      onSpent: (requests) => {
        this.lastWait = { requests };
        this.requests += requests;
        merged.onSpent?.(requests);
      },
    });
    return this.remember([...inHand, ...more]);
  }

  private remember(messages: Message[]): Message[] {
    for (const message of messages) if (!this.returned.some((known) => known.id === message.id)) this.returned.push(message);
    return messages;
  }

  /**
   * Passes when no new matching message arrives for `forMs` (polling through the window on the
   * wait's schedule); fails with `UnexpectedMessageError` naming the mail that arrived (subject,
   * sender, received time). A window cut short by `maxRequests` proves nothing: its
   * `WaitTimeoutError` is thrown. The mail that arrived is not consumed: a later wait returns it.
   */
  async expectNoMessage(match: MessageMatch = {}, options: Omit<InboxWaitOptions, 'timeoutMs'> & { forMs: number }): Promise<void> {
    const { forMs, ...rest } = options;
    let message: Message;
    try {
      message = await this.waitForMessage(match, { ...rest, timeoutMs: forMs });
    } catch (error) {
      if (error instanceof WaitTimeoutError && error.reason === 'deadline') return;
      throw error;
    }
    this.client.returnedIds(this.id).delete(message.id);
    const index = this.returned.findIndex((known) => known.id === message.id);
    if (index >= 0) this.returned.splice(index, 1);
    throw new UnexpectedMessageError(this.id, [{ id: message.id, subject: message.subject, from: message.from, receivedAt: message.received_at }], `Expected no matching message (${describeCriteria({ ...rest, match })}) at ${this.address} for ${forMs} ms`);
  }

  /** Waits for a matching message and returns its verification code; throws when it holds none. */
  async waitForCode(match: MessageMatch = {}, options: InboxWaitOptions = {}): Promise<string> {
    const message = await this.waitForMessage(match, options);
    return extractCode(message) ?? missing('code', message);
  }

  /** Waits for a matching message and returns its action link (entity-decoded); throws when it holds none. */
  async waitForLink(match: MessageMatch = {}, options: InboxWaitOptions = {}): Promise<string> {
    const message = await this.waitForMessage(match, options);
    return extractLink(message) ?? missing('link', message);
  }

  /**
   * Waits as `waitForMessage` does, but keeps the message for the next wait instead of returning
   * it as consumed (what `toHaveReceived` uses, so that `waitForCode` after it sends no request).
   */
  async receive(match: MessageMatch = {}, options: InboxWaitOptions = {}): Promise<Message> {
    const message = await this.waitForMessage(match, options);
    this.client.returnedIds(this.id).delete(message.id);
    this.kept.push(message);
    return message;
  }
}

function missing(what: string, message: Message): never {
  throw new Error(`The message ${message.id} (${JSON.stringify(message.subject)}) holds no ${what}`);
}
