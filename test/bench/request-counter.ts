import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { AttributeValue, ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { MiddlewareStack } from '@smithy/types';
import { itemSize, readUnits, writeUnits, type Interval } from './capacity';

/**
 * Counts the DynamoDB requests one measured operation makes, with the capacity each consumed:
 * SDK middleware on the platform's client records every request made on behalf of the
 * operation under measurement (an AsyncLocalStorage store per measured operation). An HTTP
 * request carries its operation's id in a header, and the gateway's handling of it is
 * attributed through Node's `http.server.request.start` channel, which fires in the
 * request's own async context before the gateway sees it.
 *
 * Capacity is what DynamoDB Local reports (`ReturnConsumedCapacity: 'TOTAL'`, added to every
 * command under measurement), except where it reports nothing or not by AWS's rules; then it
 * is computed from item sizes (test/bench/capacity.ts):
 * - a write refused by its condition (no ConsumedCapacity in an error): its item's size,
 *   from the `ALL_OLD` item the error carries, else from the item read after the operation;
 * - transactions (DynamoDB Local bills 4 units per KB of the whole request): 2 units per KB
 *   of each item, a Put's from its request, the others' from the item read after the
 *   operation (a deleted item counts as the minimum).
 */
export interface DynamoRequest extends Interval {
  /** The DynamoDB action: GetItem, UpdateItem, TransactWriteItems… */
  readonly action: string;
  readonly rcu: number;
  readonly wcu: number;
  /** Capacity computed from item sizes rather than reported by DynamoDB Local. */
  readonly computed: boolean;
  /** The error's name, for a request that failed (a refused condition included). */
  readonly error?: string;
}

type Recorded = { -readonly [K in keyof DynamoRequest]: DynamoRequest[K] };
type Key = Record<string, AttributeValue>;
/** The size of the item at `key` now, read outside any measurement (0 if there is none). */
export type ItemSizeLookup = (table: string, key: Key) => Promise<number>;

interface Measurement {
  readonly requests: Recorded[];
  /** Item sizes to read once the operation is over: a read now would sit among the requests it times. */
  readonly lookups: (() => Promise<void>)[];
}

const header = 'x-bench-measure';
const takesCapacity = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
  'ExecuteStatement',
  'BatchExecuteStatement',
  'ExecuteTransaction',
]);
const reads = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems', 'ExecuteStatement']);
/** lib-dynamodb's command names → DynamoDB's actions. */
const documentActions: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
};

function actionOf(commandName: unknown): string {
  const name = String(commandName ?? '').replace(/Command$/, '');
  return documentActions[name] ?? name;
}

function reportedUnits(action: string, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined) {
  if (consumed === undefined) return undefined;
  const units = (Array.isArray(consumed) ? consumed : [consumed]).reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
  return reads.has(action) ? { rcu: units, wcu: 0 } : { rcu: 0, wcu: units };
}

export class RequestCounter {
  private readonly current = new AsyncLocalStorage<Measurement>();
  private readonly open = new Map<string, Measurement>();
  private nextId = 0;
  private readonly onRequest = (message: unknown) => {
    const request = (message as { request?: IncomingMessage }).request;
    const measurement = this.open.get(String(request?.headers[header]));
    if (measurement) this.current.enterWith(measurement);
  };

  constructor(private readonly sizeOf: ItemSizeLookup) {
    subscribe('http.server.request.start', this.onRequest);
  }

  /** Runs `operation` and returns the DynamoDB requests made on its behalf. */
  async measure<T>(
    operation: (headers: Record<string, string>) => Promise<T>,
  ): Promise<{ readonly result: T; readonly requests: readonly DynamoRequest[] }> {
    const id = `m${this.nextId++}`;
    const measurement: Measurement = { requests: [], lookups: [] };
    this.open.set(id, measurement);
    try {
      const result = await this.current.run(measurement, () => operation({ [header]: id }));
      await Promise.all(measurement.lookups.map((lookUp) => lookUp()));
      return { result, requests: measurement.requests };
    } finally {
      this.open.delete(id);
    }
  }

  /** Adds the counting middleware to a client (a DocumentClient shares its client's stack). */
  install(client: { readonly middlewareStack: MiddlewareStack<any, any> }): void {
    client.middlewareStack.add(
      (next, context) => (args) => {
        const input = args.input as Record<string, unknown>;
        if (this.current.getStore() && takesCapacity.has(actionOf(context.commandName)))
          input.ReturnConsumedCapacity ??= 'TOTAL';
        return next(args);
      },
      { step: 'initialize', priority: 'high', name: 'benchAskConsumedCapacity' },
    );
    // Inside the retry middleware: every attempt is a request DynamoDB answers and bills.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const measurement = this.current.getStore();
        if (!measurement) return next(args);
        const action = actionOf(context.commandName);
        const input = args.input as Record<string, any>;
        const record: Recorded = { action, start: performance.now(), end: 0, rcu: 0, wcu: 0, computed: false };
        measurement.requests.push(record);
        try {
          const result = await next(args);
          record.end = performance.now();
          this.account(measurement, record, input, result.output as Record<string, any>);
          return result;
        } catch (error) {
          record.end = performance.now();
          record.error = (error as Error).name;
          this.accountFailure(measurement, record, input, error as Record<string, any>);
          throw error;
        }
      },
      { step: 'finalizeRequest', priority: 'low', name: 'benchCountRequests' },
    );
  }

  close(): void {
    unsubscribe('http.server.request.start', this.onRequest);
  }

  private account(measurement: Measurement, record: Recorded, input: Record<string, any>, output: Record<string, any>) {
    if (record.action === 'TransactWriteItems') return this.transactWrite(measurement, record, input);
    if (record.action === 'TransactGetItems') {
      record.computed = true;
      for (const response of (output.Responses ?? []) as { Item?: Key }[])
        record.rcu += readUnits(response.Item ? itemSize(response.Item) : 0, 'transactional');
      return;
    }
    const reported = reportedUnits(record.action, output.ConsumedCapacity);
    if (reported) return Object.assign(record, reported);
    record.computed = true;
    const consistency = input.ConsistentRead ? 'strong' : 'eventual';
    if (record.action === 'GetItem') record.rcu = readUnits(output.Item ? itemSize(output.Item) : 0, consistency);
    else if (record.action === 'Query' || record.action === 'Scan')
      record.rcu = readUnits(
        ((output.Items ?? []) as Key[]).reduce((sum, item) => sum + itemSize(item), 0),
        consistency,
      );
    else if (input.Item) record.wcu = writeUnits(itemSize(input.Item));
    else this.lookUp(measurement, input.TableName, input.Key, (bytes) => (record.wcu = writeUnits(bytes)));
  }

  private accountFailure(
    measurement: Measurement,
    record: Recorded,
    input: Record<string, any>,
    error: Record<string, any>,
  ) {
    if (record.action === 'TransactWriteItems' && error.name === 'TransactionCanceledException')
      return this.transactWrite(measurement, record, input);
    if (error.name !== 'ConditionalCheckFailedException') return;
    // A write refused by its condition is billed as a write of the item it found.
    record.computed = true;
    const found = (error.Item as Key | undefined) ?? (input.Item as Key | undefined);
    if (found) record.wcu = writeUnits(itemSize(found));
    else this.lookUp(measurement, input.TableName, input.Key, (bytes) => (record.wcu = writeUnits(bytes)));
  }

  private transactWrite(measurement: Measurement, record: Recorded, input: Record<string, any>) {
    record.computed = true;
    for (const item of (input.TransactItems ?? []) as Record<string, { TableName: string; Key?: Key; Item?: Key }>[]) {
      const [part] = Object.values(item);
      if (!part) continue;
      if (part.Item) record.wcu += writeUnits(itemSize(part.Item), true);
      else this.lookUp(measurement, part.TableName, part.Key, (bytes) => (record.wcu += writeUnits(bytes, true)));
    }
  }

  private lookUp(measurement: Measurement, table: string, key: Key | undefined, apply: (bytes: number) => void) {
    if (!key) return apply(0);
    measurement.lookups.push(async () => apply(await this.sizeOf(table, key)));
  }
}
