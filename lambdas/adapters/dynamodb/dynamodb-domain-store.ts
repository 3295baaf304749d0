import { GetCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Domain, DomainStore } from '../../core/ports/domain-store';
import { readAllPages } from './read-all-pages';

export interface DomainItem {
  domain: string;
  create_enabled: boolean;
  receive_enabled: boolean;
}

/** Receiving domains: a handful of small items, listed whole. */
export class DynamoDbDomainStore implements DomainStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(domain: Domain): Promise<void> {
    const item: DomainItem = {
      domain: domain.domain,
      create_enabled: domain.createEnabled,
      receive_enabled: domain.receiveEnabled,
    };
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }

  async get(domain: string): Promise<Domain | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { domain } }));
    return Item ? domainFromItem(Item as DomainItem) : undefined;
  }

  async list(): Promise<Domain[]> {
    const items = await readAllPages(this.client, (start) => new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: start }));
    return items.map((item) => domainFromItem(item as unknown as DomainItem));
  }
}

export function domainFromItem(item: DomainItem): Domain {
  return { domain: item.domain, createEnabled: item.create_enabled, receiveEnabled: item.receive_enabled };
}
