export { TempmailClient, type ClientOptions } from './client';
export { AllowanceExhaustedError, RateLimitedError, TempmailError, TempmailNetworkError, WaitTimeoutError, type ErrorDetail } from './errors';
export { extractCode, extractCodes, extractLink, extractLinks, type ExtractableMessage } from './extract';
export { decodeEntities, htmlToText } from './html-text';
export { parseFrom, type Sender } from './parse-from';
export { defaultRetryPolicy, type RetryPolicy } from './retry-policy';
export type { Attachment, CreateEmailRequest, Domain, Email, FileBody, Message, MessageListItem, Page, PageQuery, Pagination, Usage } from './types';
export { waitForMessage, type MessageMatch, type TextMatcher, type WaitingClient, type WaitOptions } from './wait-for-message';
export type { components, operations, paths } from './generated/openapi';
