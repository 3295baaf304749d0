import { createRequire } from 'node:module';

/**
 * A maintained patch of dynalite (the local DynamoDB): an item and its index entries are written
 * in ONE LevelDB batch, as DynamoDB never shows an index entry for an item that was not written.
 *
 * dynalite 4.0.0 writes them separately: `actions/putItem.js`, `updateItem.js` and
 * `deleteItem.js` call `db.updateIndexes(...)` and only in its callback `itemDb.put`/`itemDb.del`;
 * `db/index.js` `updateIndexes` issues each index put and delete as its own LevelDB write
 * (`async.parallel` of `indexDb.put`/`indexDb.del`). A process killed between the two leaves an
 * index entry without its item: a message listed through `by_email` whose every read is 404.
 *
 * The patch replaces `updateIndexes` (the actions look it up on the module at call time) with one
 * that writes the index changes and the item change together in a single batch. The action's own
 * item write that follows rewrites the same value under the same key lock: redundant, harmless.
 */
const patchedVersion = '4.0.0';
const applied = Symbol.for('tempmail.dynalite.atomicWrites');

type Item = Record<string, unknown>;
type Callback = (error?: Error | null) => void;
interface LevelOperation {
  type: 'put' | 'del';
  key: string;
  value?: unknown;
}
/** A dynalite sub-database: a key prefix over the one LevelDB; its batch prefixes and hands over to `store.db`. */
interface SubDb {
  batch(operations: LevelOperation[], callback?: Callback): void;
}
interface Store {
  db: SubDb;
  getItemDb(tableName: string): SubDb;
  getIndexDb(indexType: 'Local' | 'Global', tableName: string, indexName: string): SubDb;
}
interface Table {
  TableName: string;
  LocalSecondaryIndexes?: unknown[];
  GlobalSecondaryIndexes?: unknown[];
}
interface DynaliteDbModule {
  updateIndexes(store: Store, table: Table, existingItem: Item | undefined, item: Item | null, callback: Callback): void;
  getIndexActions(
    indexes: unknown[],
    existingItem: Item | undefined,
    item: Item | null,
    table: Table,
  ): { puts: { index: string; key: string; item: Item }[]; deletes: { index: string; key: string }[] };
  createKey(item: Item, table: Table): string;
  [applied]?: true;
}

/** Applies the patch once per process; refuses a dynalite version it was not written for. */
export function makeDynaliteWritesAtomic(): void {
  const require = createRequire(__filename);
  const { version } = require('dynalite/package.json') as { version: string };
  if (version !== patchedVersion) {
    throw new Error(`dynalite ${version} is installed; local/dynalite-atomic-writes.ts patches ${patchedVersion}: review it against this version`);
  }
  const db = require('dynalite/db') as DynaliteDbModule;
  if (db[applied]) return;
  db.updateIndexes = (store, table, existingItem, item, callback) => {
    const deletes: LevelOperation[] = [];
    const puts: LevelOperation[] = [];
    for (const indexType of ['Local', 'Global'] as const) {
      const indexes = table[`${indexType}SecondaryIndexes`] ?? [];
      const actions = db.getIndexActions(indexes, existingItem, item, table);
      for (const { index, key } of actions.deletes) {
        deletes.push(...prefixed(store, store.getIndexDb(indexType, table.TableName, index), [{ type: 'del', key }]));
      }
      for (const { index, key, item: value } of actions.puts) {
        puts.push(...prefixed(store, store.getIndexDb(indexType, table.TableName, index), [{ type: 'put', key, value }]));
      }
    }
    // No index entry to change: the action's own single item write is atomic already.
    if (deletes.length === 0 && puts.length === 0) return setImmediate(callback);
    const key = db.createKey((item ?? existingItem)!, table);
    const itemChange: LevelOperation = item ? { type: 'put', key, value: item } : { type: 'del', key };
    store.db.batch([...deletes, ...puts, ...prefixed(store, store.getItemDb(table.TableName), [itemChange])], callback);
  };
  db[applied] = true;
}

/**
 * The operations with the sub-database's key prefix, as dynalite itself composes it: the
 * sub-database's `batch` is run against a recorder in place of `store.db.batch`, synchronously.
 */
function prefixed(store: Store, subDb: SubDb, operations: LevelOperation[]): LevelOperation[] {
  const main = store.db;
  const batch = main.batch;
  let recorded: LevelOperation[] | undefined;
  main.batch = (withPrefix) => {
    recorded = withPrefix;
  };
  try {
    subDb.batch(operations);
  } finally {
    main.batch = batch;
  }
  if (!recorded) throw new Error('dynalite sub-database did not batch through its main database');
  return recorded;
}
