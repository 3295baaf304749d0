import type { S3Operation } from './s3-stand-in';

/**
 * Limits of the storage services that the local stand-ins would not apply by themselves
 * (dynalite applies DynamoDB's; docs/start-stack.md, "AWS's limits", cites each figure).
 */

/** S3's DeleteObjects takes at most 1,000 keys (DeleteObjects API reference). */
export const s3DeleteObjectsMaxKeys = 1000;

/**
 * S3's refusal of a request over one of its limits, before any key of it is authorized: a
 * DeleteObjects of more than 1,000 keys does not validate against S3's schema (400 MalformedXML).
 */
export function s3LimitRefusal(operation: S3Operation): { status: number; code: string; message: string } | undefined {
  if (operation.command === 'DeleteObjects' && operation.input.Delete!.Objects.length > s3DeleteObjectsMaxKeys) {
    return { status: 400, code: 'MalformedXML', message: 'The XML you provided was not well-formed or did not validate against our published schema' };
  }
  return undefined;
}
