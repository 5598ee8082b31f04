import { CustomResource, Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ProjectFunction } from './project-function';

/** The custom resource's handler, relative to the repository root. */
export const signingKeyEntry = 'lambdas/custom-resource/token-signing-key.ts';
export const signingKeyResourceType = 'Custom::TokenSigningKey';
/**
 * How long CloudFormation waits for the provisioner's answer before failing the resource (and
 * the deploy) instead of its default hour: long enough for the 30 s handler and Lambda's two
 * asynchronous retries (about 1 and 2 minutes later), short enough that a handler that cannot
 * even load rolls the stack back within minutes. CloudFormation accepts 1 s to 1 hour.
 */
export const signingKeyServiceTimeout = Duration.minutes(5);

export interface TokenSigningKeyProps {
  /** The secret the handlers read the key from. */
  readonly secret: secretsmanager.ISecret;
  readonly logRetention?: logs.RetentionDays;
}

/**
 * Makes the platform's signing secret hold a key: a custom resource that puts a valid Ed25519
 * private JWK into it at deploy. The secret is created with a random placeholder (Secrets
 * Manager needs a value); the custom resource replaces the placeholder on the first deploy
 * and leaves any usable key alone after that, an operator's included. Nothing happens on
 * delete. Rotation is by hand (docs/operations.md).
 */
export class TokenSigningKey extends Construct {
  readonly secret: secretsmanager.ISecret;
  readonly provisioner: ProjectFunction;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: TokenSigningKeyProps) {
    super(scope, id);
    this.secret = props.secret;

    this.provisioner = new ProjectFunction(this, 'Provisioner', {
      entry: signingKeyEntry,
      description: 'Puts an Ed25519 signing key into the token signing secret unless it holds one',
      timeout: Duration.seconds(30),
      memorySize: 256,
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    // Read to tell a key from the placeholder, write only when it is not one: this secret only.
    iam.Grant.addToPrincipal({
      grantee: this.provisioner.role,
      actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
      resourceArns: [this.secret.secretArn],
    });
    this.secret.encryptionKey?.grantEncryptDecrypt(this.provisioner.role);

    // The function is the service token: no provider framework (and its extra functions and roles).
    this.resource = new CustomResource(this, 'Key', {
      serviceToken: this.provisioner.function.functionArn,
      resourceType: signingKeyResourceType,
      serviceTimeout: signingKeyServiceTimeout,
      properties: { SecretId: this.secret.secretArn },
    });
  }

  /** The key's id, as the custom resource reports it. */
  get kid(): string {
    return this.resource.getAttString('Kid');
  }

  /** The public half as a key set (`{"keys":[…]}`): what verifiers of platform tokens publish. */
  get publicJwks(): string {
    return this.resource.getAttString('PublicJwks');
  }
}
