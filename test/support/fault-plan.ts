import type { Readable } from 'node:stream';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Unavailable } from '../../lambdas/core/errors';
import type { BlobStore } from '../../lambdas/core/ports/blob-store';
import { wrappedBlobStore } from './wrapped-blob-store';

/** The storage failures a call can meet in production. */
export type FaultKind = 'throttled' | 'server error' | 'timed out' | 'condition race';

/** The error each kind of failure arrives as, from DynamoDB or from the blob store (S3). */
function faultError(kind: FaultKind, store: 'dynamodb' | 'blobs'): Error {
  const make = (name: string, message: string, status: number, fault: 'client' | 'server') =>
    Object.assign(new Error(message), { name, $fault: fault, $metadata: { httpStatusCode: status } });
  switch (kind) {
    case 'throttled':
      return store === 'dynamodb'
        ? make('ProvisionedThroughputExceededException', 'Rate of requests exceeds the allowed throughput.', 400, 'client')
        : make('SlowDown', 'Please reduce your request rate.', 503, 'server');
    case 'server error':
      return store === 'dynamodb'
        ? make('InternalServerError', 'Internal server error', 500, 'server')
        : make('ServiceUnavailable', 'Service is unable to handle request.', 503, 'server');
    case 'timed out':
      return make('TimeoutError', 'Connection timed out after 3000 ms', 0, 'client');
    case 'condition race':
      return make('ConditionalCheckFailedException', 'The conditional request failed', 400, 'client');
  }
}

/**
 * Every storage call of the service, DynamoDB (through SDK middleware on the real client) and
 * blobs (through a wrapper), numbered as they happen; a plan can fail the call with a given
 * number once, with a given kind of failure. The call never reaches storage.
 */
export function faultPlan() {
  let calls: string[] = [];
  let planned: { at: number; kind: FaultKind } | undefined;
  let injected = 0;

  function observe(label: string, store: 'dynamodb' | 'blobs') {
    const index = calls.length;
    calls.push(label);
    if (planned && planned.at === index) {
      const { kind } = planned;
      planned = undefined;
      injected += 1;
      // The S3 blob store's client maps these to `Unavailable` before the store returns; DynamoDB errors arrive raw at the adapters.
      throw store === 'blobs' ? new Unavailable(1, { cause: faultError(kind, store) }) : faultError(kind, store);
    }
  }

  return {
    /** Starts numbering calls from zero, failing call `at` (if given) once. */
    start(fail?: { at: number; kind: FaultKind }) {
      calls = [];
      planned = fail;
    },
    /** The calls made since `start`, by label. */
    calls: () => [...calls],
    /** True once the planned failure has been thrown. */
    fired: () => planned === undefined,
    injected: () => injected,
    instrument(client: DynamoDBDocumentClient) {
      client.middlewareStack.add(
        (next, context) => async (args) => {
          const table = String((args.input as { TableName?: string }).TableName ?? '').replace(/^.*-/, '');
          observe(`${context.commandName} ${table}`, 'dynamodb');
          return next(args);
        },
        { step: 'initialize', name: 'testFaultPlan' },
      );
    },
    wrapBlobs(blobs: BlobStore): BlobStore {
      const kindOf = (key: string) => key.replace(/^mail\/[^/]+\//, '').replace(/\/att_.*$/, '/att');
      return wrappedBlobStore(blobs, {
        put: async (key, body, options) => {
          try {
            observe(`blob put ${kindOf(key)}`, 'blobs');
          } catch (error) {
            (body as Readable).resume?.();
            throw error;
          }
          return blobs.put(key, body, options);
        },
        get: async (key, options) => {
          observe(`blob get ${kindOf(key)}`, 'blobs');
          return blobs.get(key, options);
        },
        delete: async (key) => {
          observe(`blob delete ${kindOf(key)}`, 'blobs');
          return blobs.delete(key);
        },
        deleteMany: async (keys) => {
          observe(`blob deleteMany ${keys.length}`, 'blobs');
          return blobs.deleteMany(keys);
        },
      });
    },
  };
}
