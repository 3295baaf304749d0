export { DEFAULT_BASE_URL, TempmailClient, operationMethods, type ClientOptions } from './client';
export { Inbox, type InboxClient, type InboxWaitOptions } from './inbox';
export {
  AllowanceExhaustedError,
  ConflictError,
  ForbiddenError,
  InternalError,
  InvalidApiKeyError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  PolicyViolationError,
  RateLimitedError,
  rateLimitReasonOf,
  type RateLimitReason,
  RedirectError,
  ServiceUnavailableError,
  TempmailError,
  TempmailNetworkError,
  UnexpectedMessageError,
  UnexpectedResponseError,
  WaitTimeoutError,
  errorCodes,
  isAllowanceExhausted,
  isConflict,
  isErrorCode,
  isInvalidApiKey,
  isInvalidRequest,
  isNetworkError,
  isNotFound,
  isUnexpectedMessage,
  isPolicyViolation,
  isRateLimited,
  isWaitTimeout,
  type ErrorCode,
  type ErrorDetail,
  type ForeignErrorCode,
} from './errors';
export { MAX_EXTRACT_CHARS, extractCode, extractCodes, extractLink, extractLinks, type ExtractableMessage } from './extract';
export { decodeEntities, htmlToText } from './html-text';
export { parseFrom, type Sender } from './parse-from';
export { MAX_JSON_ANSWER_BYTES } from './read-json-answer';
export { MAX_RETRY_WAIT_MS, defaultRetryPolicy, type RetryPolicy } from './retry-policy';
export { asAttachmentId, asEmailId, asMessageId } from './types';
export type { Attachment, AttachmentId, CreateEmailRequest, Domain, Email, EmailId, FileBody, Message, MessageId, MessageListItem, Page, PageQuery, Pagination, Usage } from './types';
export { waitForMessage, waitForMessages, worstCaseRequests, type CallOptions, type Mark, type MessageMatch, type TextMatcher, type WaitForMessagesOptions, type WaitingClient, type WaitOptions } from './wait-for-message';
export type { Criterion, Rejection, WaitReport } from './wait-report';
export type { components, operations, paths } from './generated/openapi';
