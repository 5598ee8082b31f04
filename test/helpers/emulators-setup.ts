import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startSqsEmulator, type SqsEmulator } from '../../local/sqs-emulator';

declare global {
  var roomkeeperEmulators: { dynamo: DynamoDbLocal; sqs: SqsEmulator } | undefined;
}

/** Starts DynamoDB Local and the SQS emulator once per run, on free ports, for every integration test. */
export default async function setup(): Promise<void> {
  const [dynamo, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
  globalThis.roomkeeperEmulators = { dynamo, sqs };
  // Workers start after global setup and inherit this environment.
  process.env.ROOMKEEPER_TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.ROOMKEEPER_TEST_SQS_ENDPOINT = sqs.endpoint;
}
