export default async function teardown(): Promise<void> {
  const emulators = globalThis.roomkeeperEmulators;
  globalThis.roomkeeperEmulators = undefined;
  await Promise.all([emulators?.dynamo.stop(), emulators?.sqs.stop()]);
}
