import { createHash } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { ApiEvent, ApiResponse } from '../api-types';

/** A strong entity tag of a body: the same bytes, the same tag. */
export function entityTagOf(body: string): string {
  return `"${createHash('sha256').update(body, 'utf8').digest('base64url').slice(0, 32)}"`;
}

/** True when an `If-None-Match` value names the tag (a list, `*`, or a weak form of it). */
export function matchesIfNoneMatch(header: string, tag: string): boolean {
  return header
    .split(',')
    .map((candidate) => candidate.trim().replace(/^W\//, ''))
    .some((candidate) => candidate === '*' || candidate === tag);
}

/**
 * Strong `ETag` on every 200 read, and 304 with no body when the client's `If-None-Match`
 * matches (DESIGN: gaps, entity tags). A 304 is charged like the read it stands for.
 */
export function entityTag(): MiddlewareObj<ApiEvent, ApiResponse> {
  return {
    after: (request) => {
      const response = request.response;
      // Streamed files carry their blob's own tag; only buffered JSON bodies are hashed here.
      if (request.event.httpMethod !== 'GET' || !response || response.statusCode !== 200) return;
      if (typeof response.body !== 'string') return;
      const tag = entityTagOf(response.body);
      const ifNoneMatch = Object.entries(request.event.headers ?? {}).find(
        ([name]) => name.toLowerCase() === 'if-none-match',
      )?.[1];
      if (ifNoneMatch !== undefined && matchesIfNoneMatch(ifNoneMatch, tag)) {
        const { 'Content-Type': _contentType, ...headers } = response.headers ?? {};
        request.response = { statusCode: 304, headers: { ...headers, ETag: tag }, body: '' };
        return;
      }
      response.headers = { ...response.headers, ETag: tag };
    },
  };
}
