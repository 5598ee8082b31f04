import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DeserializeMiddleware, MetadataBearer, Pluggable } from '@smithy/types';

/**
 * A refused condition, decoded by us rather than by the SDK's generic error path. A refused
 * claim answers with the whole room (`ALL_OLD`: every member), and the SDK reads an error body
 * as an untyped document, visiting every value of it through its schema machinery before it
 * builds the exception: for a full room that costs several times the rest of the request. Here
 * the body is parsed once and the exception is the SDK's own class, with the same name,
 * message, metadata and `Item`; every other answer goes on to the SDK untouched.
 */
const refusalType = 'ConditionalCheckFailedException';

interface RawResponse {
  readonly statusCode?: number;
  readonly headers?: Record<string, string | undefined>;
  body?: unknown;
}

async function bytesOf(body: unknown): Promise<Buffer> {
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** As the SDK reads an attribute value: binaries decoded from base64, lists and maps in place. */
function readAttributeValue(value: unknown): AttributeValue {
  const av = value as Record<string, unknown>;
  if (typeof av.B === 'string') av.B = new Uint8Array(Buffer.from(av.B, 'base64'));
  if (Array.isArray(av.BS)) av.BS = av.BS.map((b: string) => new Uint8Array(Buffer.from(b, 'base64')));
  if (Array.isArray(av.L)) av.L = av.L.map(readAttributeValue);
  if (av.M && typeof av.M === 'object') {
    const map = av.M as Record<string, AttributeValue>;
    for (const key of Object.keys(map)) map[key] = readAttributeValue(map[key]);
  }
  return value as AttributeValue;
}

interface RefusalBody {
  readonly __type: string;
  readonly message?: string;
  readonly Message?: string;
  readonly Item?: unknown;
}

function isRefusal(parsed: unknown): parsed is RefusalBody {
  const type = (parsed as { __type?: unknown } | null)?.__type;
  return typeof type === 'string' && (type === refusalType || type.endsWith(`#${refusalType}`));
}

function refusalOf(parsed: RefusalBody, response: RawResponse): ConditionalCheckFailedException {
  const headers = response.headers ?? {};
  const item =
    parsed.Item && typeof parsed.Item === 'object' ? (parsed.Item as Record<string, AttributeValue>) : undefined;
  if (item) for (const key of Object.keys(item)) item[key] = readAttributeValue(item[key]);
  const exception = new ConditionalCheckFailedException({
    message: parsed.message ?? parsed.Message ?? 'UnknownError',
    $metadata: {
      httpStatusCode: response.statusCode,
      requestId: headers['x-amzn-requestid'] ?? headers['x-amzn-request-id'] ?? headers['x-amz-request-id'],
      extendedRequestId: headers['x-amz-id-2'],
      cfId: headers['x-amz-cf-id'],
    },
    ...(item ? { Item: item } : {}),
  });
  // The SDK copies the body's fields onto its exception as well.
  return Object.assign(exception, { __type: parsed.__type });
}

const decodeRefusals: DeserializeMiddleware<object, MetadataBearer> = (next) => async (args) => {
  const result = await next(args);
  const response = result.response as RawResponse;
  if (response.statusCode !== 400 || response.body === undefined) return result;
  const bytes = await bytesOf(response.body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (isRefusal(parsed)) throw refusalOf(parsed, response);
  // Not ours: the SDK reads the body it would have read.
  response.body = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return result;
};

/** Installs the decoder on a DynamoDB client, right below the SDK's own deserializer. */
export const conditionRefusals: Pluggable<object, MetadataBearer> = {
  applyToStack: (stack) => {
    stack.addRelativeTo(decodeRefusals, {
      relation: 'after',
      toMiddleware: 'deserializerMiddleware',
      name: 'conditionRefusals',
      override: true,
    });
  },
};
