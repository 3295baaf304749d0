import type { DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Every item of a scan or query, page after page: DynamoDB cuts a page at 1 MB whatever `Limit`
 * says, so a listing that stops at the first `LastEvaluatedKey` silently loses the rest.
 */
export async function readAllPages(
  client: DynamoDBDocumentClient,
  command: (start: Record<string, unknown> | undefined) => ScanCommand | QueryCommand,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(command(start) as ScanCommand);
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
